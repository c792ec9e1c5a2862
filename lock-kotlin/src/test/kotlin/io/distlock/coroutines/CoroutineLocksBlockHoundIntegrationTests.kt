package io.distlock.coroutines

import io.distlock.annotation.DistributedLock
import io.distlock.autoconfigure.DistlockAutoConfiguration
import io.distlock.core.LockAcquisitionException
import io.distlock.core.LockRequest
import io.distlock.redis.RedisLockRegistry
import io.distlock.test.redis.RedisServerExtension
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactor.asCoroutineDispatcher
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.data.redis.connection.RedisStandaloneConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import reactor.blockhound.BlockHound
import reactor.core.scheduler.Schedulers
import java.time.Duration
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList

/**
 * BlockHound over the coroutine paths on a real Redis: [withLock], [lockedFlow] and
 * `@DistributedLock` on `suspend` functions and `Flow`s, called from coroutines on Reactor's
 * parallel scheduler (a dispatcher whose threads BlockHound treats as non-blocking, as a WebFlux
 * handler's are), make no blocking call on those threads, on the Lettuce event loops that grant
 * and release, or on the registry's timer thread. BlockHound records what it finds instead of
 * throwing, so that a blocking call swallowed inside a driver callback still fails the test;
 * negative controls show it catching a deliberate blocking call on the same paths. Set up as
 * `ReactiveLocksBlockHoundIntegrationTests` in distlock-test, which covers the Reactor API.
 *
 * Runs in a JVM of its own (this module's surefire forks one per test class), since BlockHound
 * instruments the JVM for good.
 */
@Timeout(120)
class CoroutineLocksBlockHoundIntegrationTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private val blockingCalls = CopyOnWriteArrayList<String>()

		/** The threads BlockHound watches here: Reactor's, Lettuce's event loops, the registry's timer. */
		private const val WATCHED_THREAD = "(parallel-|lettuce-|distlock-wait-).*"

		/** The thread on which an unconfined coroutine resumes after a delay. */
		private const val DELAY_THREAD = "kotlinx\\.coroutines\\.DefaultExecutor"

		/** Coroutines on Reactor's parallel threads, which BlockHound watches. */
		private val nonBlocking = Schedulers.parallel().asCoroutineDispatcher()

		private lateinit var secondConnections: LettuceConnectionFactory

		private lateinit var first: RedisLockRegistry

		private lateinit var second: RedisLockRegistry

		@JvmStatic
		@BeforeAll
		fun installBlockHound() {
			BlockHound.install({ builder ->
				builder
					.nonBlockingThreadPredicate { current -> current.or { it.name.startsWith("distlock-wait-") } }
					.blockingMethodCallback { method ->
						val stack = Thread.currentThread().stackTrace.joinToString("\n") { "\tat $it" }
						// An idle scheduler worker parked in ThreadPoolExecutor.getTask waits for its
						// next task; no task is blocking (as in ReactiveLocksBlockHoundIntegrationTests).
						// kotlinx-coroutines-reactive's one-time static initializer reads its service
						// files from its jar, on whichever thread first adapts a publisher to a Flow:
						// once per JVM, not per call, and not distlock's (docs/kotlin.md).
						if (!stack.contains("java.util.concurrent.ThreadPoolExecutor.getTask")
							&& !stack.contains("kotlinx.coroutines.reactive.ReactiveFlowKt.<clinit>")) {
							blockingCalls.add("$method on ${Thread.currentThread().name}\n$stack")
						}
					}
			})
			secondConnections = redis.server().newConnectionFactory(Duration.ofSeconds(2))
			first = RedisLockRegistry.builder(redis.server().connectionFactory()).leaseTime(Duration.ofMillis(900)).build()
			second = RedisLockRegistry.builder(secondConnections).leaseTime(Duration.ofMillis(900)).build()
			// Spring Data Redis opens its shared Lettuce connection on first use, synchronously:
			// open both here, on the test thread, as an application does at startup (see
			// aFreshConnectionFactoryConnectsOnTheFirstCallersThread).
			openConnection(redis.server().connectionFactory())
			openConnection(secondConnections)
		}

		private fun openConnection(factory: LettuceConnectionFactory) {
			factory.connection.use { it.ping() }
		}

		@JvmStatic
		@AfterAll
		fun closeRegistries() {
			first.close()
			second.close()
			secondConnections.destroy()
		}
	}

	private lateinit var key: String

	/** The threads the locked blocks ran on: the detector only watches non-blocking ones. */
	private val threads = CopyOnWriteArrayList<String>()

	@BeforeEach
	fun newKey() {
		key = "blockhound:" + UUID.randomUUID()
		blockingCalls.clear()
	}

	@Test
	fun contendedWithLockAndLockedFlowMakeNoBlockingCallOnANonBlockingThread() {
		val counter = Counter()
		runBlocking(nonBlocking) {
			coroutineScope {
				repeat(50) {
					launch { first.withLock(request()) { noteThread(); counter.increment() } }
					launch {
						second.lockedFlow(request()) { flow { noteThread(); emit(counter.increment()) } }.toList()
					}
				}
			}
		}
		assertThat(counter.value).isEqualTo(100)
		assertThat(threads).hasSize(100).allSatisfy { assertThat(it).startsWith("parallel-") }
		assertThat(blockingCalls).isEmpty()
	}

	@Test
	fun timeoutsAndCancellationsMakeNoBlockingCallOnANonBlockingThread() {
		runBlocking(nonBlocking) {
			val held = CompletableDeferred<Unit>()
			val release = CompletableDeferred<Unit>()
			val holder = launch { second.withLock(request()) { held.complete(Unit); release.await() } }
			held.await()
			// Not acquired within the wait time, across instances.
			val failure = runCatching {
				first.withLock(LockRequest.of(key).waitTime(Duration.ofMillis(200))) { "ran" }
			}.exceptionOrNull()
			assertThat(failure).isInstanceOf(LockAcquisitionException::class.java)
			// Cancelled while waiting, then the holder lets go.
			assertThat(withTimeoutOrNull(200) { first.withLock(request()) { "ran" } }).isNull()
			release.complete(Unit)
			holder.join()
			assertThat(first.withLock(request()) { "ran" }).isEqualTo("ran")
		}
		assertThat(blockingCalls).isEmpty()
	}

	@Test
	fun annotatedSuspendAndFlowFunctionsMakeNoBlockingCallOnANonBlockingThread() = withStock { stock ->
		val counter = Counter()
		runBlocking(nonBlocking) {
			coroutineScope {
				repeat(25) {
					launch { stock.increment(counter, key) }
					launch { stock.incrementTwice(counter, key).toList() }
				}
			}
		}
		assertThat(counter.value).isEqualTo(75)
		assertThat(stock.threads).hasSize(25).allSatisfy { assertThat(it).matches(WATCHED_THREAD) }
		// A flow is collected unconfined: a lock granted on Lettuce's thread or the registry's
		// starts it on Reactor's bounded-elastic scheduler, never there; a lock handed over by the
		// previous holder starts it on the thread that released it, once that release returned.
		// A previous flow resumed after its delay(1) on kotlinx's DefaultExecutor and released
		// there; BlockHound cannot watch that thread, which parks between delays.
		assertThat(stock.flowThreads).hasSize(25)
			.allSatisfy { assertThat(it).matches("(parallel-|boundedElastic-).*|$DELAY_THREAD") }
		assertThat(blockingCalls).isEmpty()
	}

	@Test
	fun aFreshConnectionFactoryConnectsOnTheFirstCallersThread() {
		// Not distlock's wait but Spring Data Redis's: a factory whose shared connection is not
		// open yet connects on the thread of the first command, here a Reactor thread.
		// Eager initialization opens it when the factory starts instead (docs/annotation.md).
		for (eager in listOf(false, true)) {
			blockingCalls.clear()
			val factory = LettuceConnectionFactory(RedisStandaloneConfiguration(redis.server().host(), redis.server().port()))
			factory.setEagerInitialization(eager)
			factory.afterPropertiesSet()
			factory.start()
			try {
				RedisLockRegistry(factory).use { fresh ->
					runBlocking(nonBlocking) { fresh.withLock(request()) { "ran" } }
				}
			}
			finally {
				factory.destroy()
			}
			if (eager) {
				assertThat(blockingCalls).isEmpty()
			}
			else {
				assertThat(blockingCalls).anySatisfy {
					assertThat(it).contains("RedisClient.connect", "parallel-")
				}
			}
		}
	}

	@Test
	fun negativeControlABlockingCallInsideWithLockIsCaught() {
		runBlocking(nonBlocking) {
			first.withLock(request()) { noteThread(); sleepOneMillisecond() }
		}
		assertThat(threads).singleElement().asString().startsWith("parallel-")
		assertThat(blockingCalls).anySatisfy {
			assertThat(it).contains("java.lang.Thread.sleep", "sleepOneMillisecond", "parallel-")
		}
	}

	@Test
	fun negativeControlABlockingCallInsideALockedFlowIsCaught() {
		runBlocking(nonBlocking) {
			first.lockedFlow(request()) { flow { sleepOneMillisecond(); emit(1) } }.toList()
		}
		assertThat(blockingCalls).anySatisfy {
			assertThat(it).contains("java.lang.Thread.sleep", "sleepOneMillisecond")
		}
	}

	@Test
	fun negativeControlABlockingCallInsideAnAnnotatedSuspendFunctionIsCaught() = withStock { stock ->
		runBlocking(nonBlocking) { stock.sleepy(key) }
		assertThat(blockingCalls).anySatisfy {
			assertThat(it).contains("java.lang.Thread.sleep", "sleepOneMillisecond", "parallel-")
		}
	}

	private fun withStock(test: (Stock) -> Unit) {
		ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
				AopAutoConfiguration::class.java, DistlockAutoConfiguration::class.java))
			.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port(), "distlock.lease-time=900ms")
			.withBean(Stock::class.java)
			.run { context ->
				assertThat(context).hasNotFailed()
				openConnection(context.getBean(LettuceConnectionFactory::class.java))
				test(context.getBean(Stock::class.java))
			}
	}

	private fun request(): LockRequest = LockRequest.of(key).waitTime(Duration.ofSeconds(30))

	private fun noteThread() {
		threads.add(Thread.currentThread().name)
	}

	open class Stock {

		/** Open, so that the proxy hands it on to the target. */
		open val threads = CopyOnWriteArrayList<String>()

		/** Where each locked flow started. */
		open val flowThreads = CopyOnWriteArrayList<String>()

		@DistributedLock(key = "#key", waitTime = "30s")
		open suspend fun increment(counter: Counter, key: String): Int {
			threads.add(Thread.currentThread().name)
			return counter.increment()
		}

		@DistributedLock(key = "#key", waitTime = "30s")
		open fun incrementTwice(counter: Counter, key: String): Flow<Int> = flow {
			flowThreads.add(Thread.currentThread().name)
			repeat(2) { emit(counter.increment()) }
		}

		@DistributedLock(key = "#key", waitTime = "30s")
		open suspend fun sleepy(key: String) {
			sleepOneMillisecond()
		}
	}
}

private fun sleepOneMillisecond() {
	Thread.sleep(1)
}

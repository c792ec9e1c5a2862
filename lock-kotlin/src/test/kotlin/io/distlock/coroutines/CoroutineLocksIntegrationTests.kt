package io.distlock.coroutines

import io.distlock.core.LockAcquisitionException
import io.distlock.core.LockListener
import io.distlock.core.LockLostException
import io.distlock.core.LockRegistry
import io.distlock.core.LockRequest
import io.distlock.redis.RedisLockRegistry
import io.distlock.test.redis.RedisServerExtension
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.catchThrowable
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import java.time.Duration
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

/**
 * [withLock], [lockedFlow] and [CoroutineLockContext] on a real Redis, with two registries on
 * their own connections standing for two application instances. Every body runs on
 * `Dispatchers.Default`; `runBlocking` appears only at the edge of each test.
 */
@Timeout(120)
class CoroutineLocksIntegrationTests {

	companion object {
		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private val LONG_WAIT: Duration = Duration.ofSeconds(30)
	}

	private lateinit var secondConnections: LettuceConnectionFactory

	private lateinit var first: RedisLockRegistry

	private lateinit var second: RedisLockRegistry

	private lateinit var key: String

	private val acquisitions = AtomicInteger()

	@BeforeEach
	fun startInstances() {
		secondConnections = redis.server().newConnectionFactory(Duration.ofSeconds(2))
		val counting = object : LockListener {
			override fun onAcquiring(name: String, key: String) {
				acquisitions.incrementAndGet()
			}
		}
		// A short lease, so that a deleted key is found lost within a third of a second.
		first = RedisLockRegistry.builder(redis.server().connectionFactory())
			.leaseTime(Duration.ofMillis(900))
			.listener(counting)
			.build()
		second = RedisLockRegistry.builder(secondConnections).leaseTime(Duration.ofMillis(900)).build()
		key = "coroutine:" + UUID.randomUUID()
		// Connections, scripts and classes ready before a test's first 900 ms lease starts counting:
		// in a cold JVM the first grant can arrive after its lease has run out, and is then retried.
		first.acquire("$key:warm-up", LONG_WAIT).release()
		second.acquire("$key:warm-up", LONG_WAIT).release()
		acquisitions.set(0)
	}

	@AfterEach
	fun stopInstances() {
		first.close()
		second.close()
		secondConnections.destroy()
	}

	@Test
	fun withLockExcludesAcrossTwoInstances() = runBlocking<Unit>(Dispatchers.Default) {
		val counter = Counter()
		coroutineScope {
			repeat(100) {
				launch { first.withLock(request(LONG_WAIT)) { counter.increment() } }
				launch { second.withLock(request(LONG_WAIT)) { counter.increment() } }
			}
		}
		assertThat(counter.value).isEqualTo(200)
	}

	@Test
	fun negativeControlTheSameIncrementsWithoutTheLockLoseUpdates() = runBlocking<Unit>(Dispatchers.Default) {
		val counter = Counter()
		coroutineScope {
			repeat(200) { launch { counter.increment() } }
		}
		assertThat(counter.value).isLessThan(200)
	}

	@Test
	fun theLockIsHeldUntilTheBlockReturns() {
		val finish = CompletableDeferred<String>()
		runBlocking(Dispatchers.Default) {
			val holder = async { first.withLock(request(LONG_WAIT)) { finish.await() } }
			offDispatcher { await().atMost(Duration.ofSeconds(5)).until { redisKeyExists() } }
			// More than two leases of 900 ms: only renewals keep the lock while the block suspends.
			assertThat(offDispatcher { second.tryAcquire(key, Duration.ofMillis(2_000)) }).isEmpty()
			finish.complete("done")
			assertThat(holder.await()).isEqualTo("done")
		}
		assertThat(redisKeyExists()).isFalse()
	}

	@Test
	fun aNullResultIsReturned() = runBlocking<Unit>(Dispatchers.Default) {
		val result: String? = first.withLock(key) { null }
		assertThat(result).isNull()
	}

	@Test
	fun cancellingWhileHoldingReleasesTheLockAndTheNextWaiterIsGrantedAtOnce() {
		val blockCancelled = AtomicBoolean()
		runBlocking(Dispatchers.Default) {
			val holder = launch {
				first.withLock(request(LONG_WAIT)) {
					try {
						awaitCancellation()
					}
					finally {
						blockCancelled.set(true)
					}
				}
			}
			offDispatcher { await().atMost(Duration.ofSeconds(5)).until { redisKeyExists() } }
			val next = second.acquireAsync(request(LONG_WAIT)).toCompletableFuture()
			assertThat(next).isNotDone()
			val cancelledAt = System.nanoTime()
			holder.cancel()
			val granted = offDispatcher { next.get(5, TimeUnit.SECONDS) }
			assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt))
				.`as`("the next waiter is woken by the release, not by a timeout")
				.isLessThan(Duration.ofSeconds(1))
			granted.release()
		}
		assertThat(blockCancelled).isTrue()
		assertThat(redisKeyExists()).isFalse()
	}

	@Test
	fun cancellingWhileWaitingGivesUpThePlaceInLineAndLeavesNoKey() {
		// A fixed lease, not renewed: the waiter's attempt is then the only script Redis runs.
		val holder = second.acquire(LockRequest.of(key).leaseTime(Duration.ofSeconds(30)))
		val scripts = redis.server().scriptCalls()
		val blockCalled = AtomicBoolean()
		runBlocking(Dispatchers.Default) {
			val waiter = launch { first.withLock(request(LONG_WAIT)) { blockCalled.set(true) } }
			// Waiting: refused by Redis once, and in line behind the holder.
			offDispatcher { await().atMost(Duration.ofSeconds(5)).until { redis.server().scriptCalls() > scripts } }
			waiter.cancel()
			waiter.join()
		}
		holder.release()
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until { !redisKeyExists() }
		assertThat(blockCalled).isFalse()
	}

	@Test
	fun aLostLockCancelsTheBlockAndThrowsLockLostException() {
		val blockCancelled = AtomicBoolean()
		val failure = catchThrowable {
			runBlocking(Dispatchers.Default) {
				first.withLock(request()) {
					try {
						deleteRedisKey()
						awaitCancellation()
					}
					finally {
						blockCancelled.set(true)
					}
				}
			}
		}
		assertThat(failure).isInstanceOf(LockLostException::class.java).hasMessageContaining(key)
		assertThat(blockCancelled).isTrue()
	}

	@Test
	fun notAcquiredWithinTheWaitTimeThrowsLockAcquisitionExceptionWithoutCallingTheBlock() {
		val holder = second.acquire(key, Duration.ZERO)
		val blockCalled = AtomicBoolean()
		val start = System.nanoTime()
		val failure = catchThrowable {
			runBlocking(Dispatchers.Default) {
				first.withLock(key, Duration.ofMillis(300)) { blockCalled.set(true) }
			}
		}
		val took = Duration.ofNanos(System.nanoTime() - start)
		holder.release()
		assertThat(failure).isInstanceOf(LockAcquisitionException::class.java).hasMessageContaining("within 300ms")
		// The wait time, with a margin of 1.7 s for a loaded machine.
		assertThat(took).isBetween(Duration.ofMillis(300), Duration.ofMillis(2_000))
		assertThat(blockCalled).isFalse()
	}

	@Test
	fun theCoroutineContextCarriesTheLeaseToTheBlockAndItsChildren() = runBlocking<Unit>(Dispatchers.Default) {
		val tokens = first.withLock(request()) { lease ->
			// A child of the block's coroutine (not of an outer scope) inherits its context.
			val child = coroutineScope { async { CoroutineLockContext.current().fencingToken() } }
			val switched = withContext(Dispatchers.IO) { CoroutineLockContext.current().fencingToken() }
			listOf(lease.fencingToken(), CoroutineLockContext.current().fencingToken(), child.await(), switched)
		}
		assertThat(tokens[0]).isPositive()
		assertThat(tokens).containsOnly(tokens[0])
		assertThat(CoroutineLockContext.find()).isNull()
		assertThat(catchThrowable { runBlocking { CoroutineLockContext.current() } })
			.isInstanceOf(IllegalStateException::class.java)
	}

	@Test
	fun aNestedWithLockOfTheSameKeyReentersWithoutASecondAcquisition() = runBlocking<Unit>(Dispatchers.Default) {
		val noWait = LockRequest.of(key)
		val leases = first.withLock(request()) { outer ->
			first.withLock(noWait) { inner -> listOf(outer, inner, CoroutineLockContext.all()) }
		}
		assertThat(leases[1]).isSameAs(leases[0])
		assertThat(leases[2] as List<*>).containsExactly(leases[0])
		assertThat(acquisitions).hasValue(1)
		assertThat(redisKeyExists()).isFalse()
		// Control: a coroutine started in another scope does not inherit the hold, and waits (here:
		// fails at once) like any other holder.
		val outside = first.withLock(request()) {
			CoroutineScope(Dispatchers.Default).async { runCatching { first.withLock(noWait) { } } }.await()
		}
		assertThat(outside.exceptionOrNull()).isInstanceOf(LockAcquisitionException::class.java)
	}

	@Test
	fun lockedFlowsExcludeEachOtherAcrossTwoInstances() = runBlocking<Unit>(Dispatchers.Default) {
		val counter = Counter()
		fun increments(registry: LockRegistry): Flow<Int> =
			registry.lockedFlow(request(LONG_WAIT)) { flow { repeat(3) { emit(counter.increment()) } } }
		coroutineScope {
			repeat(50) {
				launch { increments(first).toList() }
				launch { flow { repeat(3) { emit(counter.increment()) } }.withLock(second, request(LONG_WAIT)).toList() }
			}
		}
		assertThat(counter.value).isEqualTo(300)
	}

	@Test
	fun aLockedFlowLocksPerCollectionAndHoldsUntilItCompletes() {
		val release = CompletableDeferred<Unit>()
		val seenHeld = CopyOnWriteArrayList<Boolean>()
		val locked = first.lockedFlow(request(LONG_WAIT)) { lease ->
			flow {
				emit(lease.fencingToken())
				release.await()
				emit(CoroutineLockContext.current().fencingToken())
			}
		}
		assertThat(redisKeyExists()).`as`("nothing is locked until the flow is collected").isFalse()
		runBlocking(Dispatchers.Default) {
			val collected = async { locked.toList() }
			offDispatcher { await().atMost(Duration.ofSeconds(5)).until { redisKeyExists() } }
			seenHeld.add(offDispatcher { second.tryAcquire(key, Duration.ofMillis(2_000)).isPresent })
			release.complete(Unit)
			val tokens = collected.await()
			assertThat(tokens).hasSize(2).containsOnly(tokens[0])
		}
		assertThat(seenHeld).containsExactly(false)
		assertThat(redisKeyExists()).isFalse()
	}

	@Test
	fun aCollectorThatStopsEarlyReleasesTheLock() {
		val upstreamCancelled = AtomicBoolean()
		runBlocking(Dispatchers.Default) {
			val head = first.lockedFlow(request()) {
				flow<Int> {
					try {
						var i = 0
						while (true) {
							emit(i++)
							delay(10)
						}
					}
					finally {
						upstreamCancelled.set(true)
					}
				}
			}.first()
			assertThat(head).isZero()
		}
		await().atMost(Duration.ofSeconds(5)).until { !redisKeyExists() }
		assertThat(upstreamCancelled).isTrue()
	}

	@Test
	fun aLostLockFailsTheFlowWithLockLostException() {
		val failure = catchThrowable {
			runBlocking(Dispatchers.Default) {
				withTimeout(10_000) {
					first.lockedFlow(request()) {
						flow<Int> {
							deleteRedisKey()
							while (true) {
								emit(1)
								delay(50)
							}
						}
					}.toList()
				}
			}
		}
		assertThat(failure).isInstanceOf(LockLostException::class.java).hasMessageContaining(key)
	}

	@Test
	fun theDocumentedCallsHoldTheLock() = runBlocking<Unit>(Dispatchers.Default) {
		val registry: LockRegistry = first
		val written = CopyOnWriteArrayList<Long>()
		suspend fun reserve(fencingToken: Long): Long = fencingToken.also { written.add(it) }
		val exporter = flow { repeat(3) { emit("line $it") } }
		// tag::programmatic[]
		val reserved: Long = registry.withLock(LockRequest.of("stock:7").waitTime(Duration.ofSeconds(2))) { lease ->
			reserve(lease.fencingToken())
		}

		val lines: Flow<String> = exporter.withLock(registry, LockRequest.of("export"))
		// end::programmatic[]
		assertThat(reserved).isPositive().isEqualTo(written[0])
		assertThat(lines.toList()).containsExactly("line 0", "line 1", "line 2")
	}

	private fun request(waitTime: Duration = Duration.ZERO): LockRequest = LockRequest.of(key).waitTime(waitTime)

	private fun redisKey(): String = "distlock:{$key}"

	/** The fault: the key vanishes (an eviction, a flush), off the dispatcher's threads. */
	private suspend fun deleteRedisKey() {
		withContext(Dispatchers.IO) { redis.server().template().delete(redisKey()) }
	}

	private fun redisKeyExists(): Boolean = redis.server().template().hasKey(redisKey()) == true

	/**
	 * Runs the test's own blocking checks (Awaitility, a blocking registry call) off
	 * `Dispatchers.Default`, so that the coroutines under test keep all of its threads.
	 */
	private suspend fun <T> offDispatcher(check: () -> T): T = withContext(Dispatchers.IO) { check() }
}

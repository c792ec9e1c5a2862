package io.distlock.coroutines

import io.distlock.annotation.DistributedLock
import io.distlock.annotation.OnFailure
import io.distlock.autoconfigure.DistlockAutoConfiguration
import io.distlock.core.LockAcquisitionException
import io.distlock.core.LockConfigurationException
import io.distlock.core.LockLease
import io.distlock.core.LockListener
import io.distlock.core.LockLostException
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
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.catchThrowable
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import org.springframework.core.annotation.AliasFor
import java.time.Duration
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

/**
 * `@DistributedLock` on Kotlin `suspend` functions and on functions returning `Flow`, in a
 * Spring context with the distlock auto-configuration, on a real Redis; two contexts stand for
 * two application instances. Callers run on `Dispatchers.Default`; `runBlocking` appears only at
 * the edge of each test.
 */
@Timeout(120)
class DistributedLockCoroutineIntegrationTests {

	companion object {
		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()
	}

	private val acquisitions = AtomicInteger()

	private fun runner(): ApplicationContextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
			AopAutoConfiguration::class.java, DistlockAutoConfiguration::class.java))
		.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
			"spring.data.redis.port=" + redis.server().port(), "distlock.lease-time=900ms")
		.withBean("countingListener", LockListener::class.java, {
			object : LockListener {
				override fun onAcquiring(name: String, key: String) {
					acquisitions.incrementAndGet()
				}
			}
		})
		.withBean(Stock::class.java)
		.withBean(Orders::class.java)

	private fun withTwoInstances(test: (Stock, Stock) -> Unit) {
		runner().run { one -> runner().run { two -> test(one.stock(), two.stock()) } }
	}

	private fun withOneInstance(test: suspend CoroutineScope.(Stock, ApplicationContext) -> Unit) {
		runner().run { context ->
			assertThat(context).hasNotFailed()
			runBlocking(Dispatchers.Default) { test(context.stock(), context) }
		}
	}

	/**
	 * Call both instances at once, [times] calls each, every call incrementing one shared
	 * [Counter], and return the counter's final value: exact only if the calls excluded each other.
	 */
	private fun callConcurrently(one: Stock, two: Stock, times: Int, call: suspend (Stock, Counter) -> Unit): Int {
		val counter = Counter()
		runBlocking(Dispatchers.Default) {
			coroutineScope {
				repeat(times) {
					launch { call(one, counter) }
					launch { call(two, counter) }
				}
			}
		}
		return counter.value
	}

	@Test
	fun suspendFunctionsExcludeEachOtherAcrossTwoInstances() = withTwoInstances { one, two ->
		assertThat(callConcurrently(one, two, 100) { stock, counter -> stock.increment(counter, "suspend") })
			.isEqualTo(200)
	}

	@Test
	fun aComposedAnnotationOnSuspendFunctionsExcludesAcrossTwoInstances() = withTwoInstances { one, two ->
		assertThat(callConcurrently(one, two, 100) { stock, counter -> stock.incrementComposed(counter, "composed") })
			.isEqualTo(200)
	}

	@Test
	fun aComposedAnnotationOnASuspendFunctionLocksTheKeyItsAttributeNames() = withOneInstance { stock, _ ->
		assertThat(stock.composedKey("k")).isEqualTo("stock:k")
	}

	@Test
	fun negativeControlTheSameSuspendFunctionWithoutTheAnnotationLosesUpdates() = withTwoInstances { one, two ->
		assertThat(callConcurrently(one, two, 100) { stock, counter -> stock.incrementUnlocked(counter) })
			.isLessThan(200)
	}

	@Test
	fun flowFunctionsExcludeEachOtherAcrossTwoInstances() = withTwoInstances { one, two ->
		assertThat(callConcurrently(one, two, 50) { stock, counter -> stock.incrementThrice(counter, "flow").toList() })
			.isEqualTo(300)
	}

	@Test
	fun negativeControlTheSameFlowWithoutTheAnnotationLosesUpdates() = withTwoInstances { one, two ->
		assertThat(callConcurrently(one, two, 50) { stock, counter -> stock.incrementThriceUnlocked(counter).toList() })
			.isLessThan(300)
	}

	@Test
	fun theLockIsHeldUntilTheSuspendFunctionReturns() = withOneInstance { stock, _ ->
		val finish = CompletableDeferred<String>()
		val call = async { stock.hold("held", finish) }
		offDispatcher { await().atMost(Duration.ofSeconds(5)).until { keyExists("stock:held") } }
		// More than two leases of 900 ms: only renewals keep it while the function suspends.
		assertThat(offDispatcher { otherInstanceCanTake("stock:held", Duration.ofMillis(2_000)) }).isFalse()
		finish.complete("done")
		assertThat(call.await()).isEqualTo("done")
		assertThat(keyExists("stock:held")).isFalse()
	}

	@Test
	fun theLockIsTakenPerCollectionAndHeldUntilTheFlowCompletes() = withOneInstance { stock, _ ->
		val finish = CompletableDeferred<Unit>()
		val flow = stock.holdFlow("held-flow", finish)
		assertThat(stock.calls()).`as`("nothing is called until the flow is collected").isZero()
		assertThat(keyExists("stock:held-flow")).isFalse()
		val collected = async { flow.toList() }
		offDispatcher { await().atMost(Duration.ofSeconds(5)).until { keyExists("stock:held-flow") } }
		assertThat(offDispatcher { otherInstanceCanTake("stock:held-flow", Duration.ofMillis(2_000)) }).isFalse()
		finish.complete(Unit)
		assertThat(collected.await()).containsExactly("first", "last")
		assertThat(keyExists("stock:held-flow")).isFalse()
		assertThat(stock.calls()).isEqualTo(1)
	}

	@Test
	fun aSuspendFunctionReturningAFlowHoldsTheLockOverTheCallAndTheCollection() = withOneInstance { stock, _ ->
		val finish = CompletableDeferred<Unit>()
		val collected = async { stock.loadThenStream("loaded", finish).toList() }
		offDispatcher { await().atMost(Duration.ofSeconds(5)).until { keyExists("stock:loaded") } }
		assertThat(offDispatcher { otherInstanceCanTake("stock:loaded", Duration.ofMillis(2_000)) }).isFalse()
		finish.complete(Unit)
		val tokens = collected.await()
		assertThat(tokens).hasSize(2).containsOnly(tokens[0])
		assertThat(keyExists("stock:loaded")).isFalse()
	}

	@Test
	fun cancellingWhileHoldingReleasesTheLockAndLeavesNoKey() = withOneInstance { stock, _ ->
		val cancelled = AtomicBoolean()
		val caller = launch { stock.holdForever("cancel", cancelled) }
		offDispatcher { await().atMost(Duration.ofSeconds(5)).until { keyExists("stock:cancel") } }
		RedisLockRegistry(redis.server().connectionFactory()).use { other ->
			val next = other.acquireAsync(LockRequest.of("stock:cancel").waitTime(Duration.ofSeconds(30)))
				.toCompletableFuture()
			assertThat(next).isNotDone()
			val cancelledAt = System.nanoTime()
			caller.cancel()
			val granted = offDispatcher { next.get(5, TimeUnit.SECONDS) }
			assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt)).isLessThan(Duration.ofSeconds(1))
			granted.release()
		}
		// Asynchronous, as above: the release may come before the function's finally has run.
		offDispatcher { await().atMost(Duration.ofSeconds(5)).untilTrue(cancelled) }
		assertThat(keyExists("stock:cancel")).isFalse()
	}

	@Test
	fun cancellingWhileWaitingGivesUpThePlaceInLineAndLeavesNoKey() = withOneInstance { stock, _ ->
		RedisLockRegistry(redis.server().connectionFactory()).use { other ->
			// A fixed lease, not renewed: the waiter's attempt is then the only script Redis runs.
			val holder = other.acquire(LockRequest.of("stock:queue").leaseTime(Duration.ofSeconds(30)))
			val scripts = redis.server().scriptCalls()
			val caller = launch { stock.waitLong("queue") }
			offDispatcher { await().atMost(Duration.ofSeconds(5)).until { redis.server().scriptCalls() > scripts } }
			caller.cancel()
			caller.join()
			holder.release()
		}
		offDispatcher { await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until { !keyExists("stock:queue") } }
		assertThat(stock.calls()).isZero()
	}

	@Test
	fun cancellingTheCollectorReleasesTheFlowsLock() = withOneInstance { stock, _ ->
		assertThat(stock.ticks("ticks").first()).isZero()
		offDispatcher { await().atMost(Duration.ofSeconds(5)).until { !keyExists("stock:ticks") } }
	}

	@Test
	fun aLostLockFailsTheSuspendFunctionWithLockLostException() = withOneInstance { stock, _ ->
		val cancelled = AtomicBoolean()
		val caller = async { runCatching { stock.holdForever("lost", cancelled) } }
		offDispatcher { await().atMost(Duration.ofSeconds(5)).until { keyExists("stock:lost") } }
		withContext(Dispatchers.IO) { redis.server().template().delete("distlock:{stock:lost}") }
		val failure = withTimeout(10_000) { caller.await() }.exceptionOrNull()
		assertThat(failure).isInstanceOf(LockLostException::class.java).hasMessageContaining("stock:lost")
		// The function's cancellation is asynchronous (docs/kotlin.md): its finally may still be
		// on its way after the caller got the loss, as it was once beside another build.
		offDispatcher { await("the function was cancelled").atMost(Duration.ofSeconds(5)).untilTrue(cancelled) }
	}

	@Test
	fun aLostLockFailsTheFlowWithLockLostException() = withOneInstance { stock, _ ->
		val collected = async { runCatching { stock.ticks("lost-flow").toList() } }
		offDispatcher { await().atMost(Duration.ofSeconds(5)).until { keyExists("stock:lost-flow") } }
		withContext(Dispatchers.IO) { redis.server().template().delete("distlock:{stock:lost-flow}") }
		val failure = withTimeout(10_000) { collected.await() }.exceptionOrNull()
		assertThat(failure).isInstanceOf(LockLostException::class.java).hasMessageContaining("stock:lost-flow")
	}

	@Test
	fun skipReturnsNullAndAnEmptyFlowWithoutCallingTheFunction() = withOneInstance { stock, _ ->
		RedisLockRegistry(redis.server().connectionFactory()).use { other ->
			val held = other.acquire("nightly", Duration.ZERO)
			assertThat(stock.nightly()).isNull()
			assertThat(stock.nightlyLines().toList()).isEmpty()
			assertThat(stock.calls()).isZero()
			held.release()
		}
		// Control: with the lock free, both run.
		assertThat(stock.nightly()).isEqualTo("ran")
		assertThat(stock.nightlyLines().toList()).containsExactly("ran")
		assertThat(stock.calls()).isEqualTo(2)
	}

	@Test
	fun fallbackCallsTheSuspendOrFlowFallback() = withOneInstance { stock, _ ->
		RedisLockRegistry(redis.server().connectionFactory()).use { other ->
			val held = other.acquire("report", Duration.ZERO)
			assertThat(stock.report("eu")).isEqualTo("cached eu report")
			assertThat(stock.reportLines("eu").toList()).containsExactly("cached", "eu")
			assertThat(stock.calls()).isZero()
			held.release()
		}
		assertThat(stock.report("eu")).isEqualTo("fresh eu")
		assertThat(stock.reportLines("eu").toList()).containsExactly("fresh", "eu")
	}

	@Test
	fun throwFailsWithLockAcquisitionExceptionAtTheWaitTime() = withOneInstance { stock, _ ->
		RedisLockRegistry(redis.server().connectionFactory()).use { other ->
			val held = other.acquire("export", Duration.ZERO)
			for (call in listOf<suspend () -> Unit>({ stock.export() }, { stock.exportLines().toList() })) {
				val start = System.nanoTime()
				val failure = runCatching { call() }.exceptionOrNull()
				val took = Duration.ofNanos(System.nanoTime() - start)
				assertThat(failure).isInstanceOf(LockAcquisitionException::class.java).hasMessageContaining("within 300ms")
				// The wait time, with a margin of 1.7 s for a loaded machine.
				assertThat(took).isBetween(Duration.ofMillis(300), Duration.ofMillis(2_000))
			}
			held.release()
		}
		assertThat(stock.calls()).isZero()
	}

	@Test
	fun theCoroutineContextCarriesTheFencingTokenOfTheHold() = withOneInstance { stock, context ->
		val registry = context.getBean(RedisLockRegistry::class.java)
		val orders = context.getBean(Orders::class.java)
		orders.whileReserving = {
			registry.heldLocks().single { it.key().startsWith("stock:4") }.fencingToken()
		}
		val written = stock.reserve(42, 1)
		assertThat(written).isPositive().isEqualTo(orders.heldToken)
		val streamed = stock.restock(43, listOf(1, 2)).toList()
		assertThat(streamed).hasSize(2).containsOnly(orders.heldToken)
		assertThat(streamed[0]).isPositive().isNotEqualTo(written)
	}

	@Test
	fun aNestedCallOnTheSameKeyReentersWithoutASecondAcquisition() = withOneInstance { stock, _ ->
		acquisitions.set(0)
		val leases = stock.outer("nested")
		assertThat(leases[1]).isSameAs(leases[0])
		assertThat(acquisitions).hasValue(1)
		assertThat(keyExists("stock:nested")).isFalse()
		// Control: the same inner call from a coroutine that does not hold the lock waits like
		// any other caller (here: fails at once, its wait time being zero).
		RedisLockRegistry(redis.server().connectionFactory()).use { other ->
			val held = other.acquire("stock:nested", Duration.ZERO)
			assertThat(runCatching { stock.inner("nested") }.exceptionOrNull())
				.isInstanceOf(LockAcquisitionException::class.java)
			held.release()
		}
	}

	/**
	 * Runs the test's own blocking checks (Awaitility, a blocking registry call) off
	 * `Dispatchers.Default`, so that the coroutines under test keep all of its threads.
	 */
	private suspend fun <T> offDispatcher(check: () -> T): T = withContext(Dispatchers.IO) { check() }

	@Test
	fun startupRefusesHoldAtLeastOnASuspendFunction() {
		assertStartupFailure(MinimumHoldSuspend::class.java, "@DistributedLock on MinimumHoldSuspend.work():",
			"attribute 'holdAtLeast' value '1s' is not supported on a suspend function")
	}

	@Test
	fun startupRefusesHoldAtLeastOnAFlow() {
		assertStartupFailure(MinimumHoldFlow::class.java, "@DistributedLock on MinimumHoldFlow.lines()",
			"attribute 'holdAtLeast' value '1s' is not supported on a method returning Flow")
	}

	@Test
	fun startupRefusesAHotFlowType() {
		assertStartupFailure(HotFlow::class.java, "@DistributedLock on HotFlow.prices()",
			"return type 'kotlinx.coroutines.flow.StateFlow' is not supported")
	}

	@Test
	fun startupRefusesASuspendFallbackThatIsNotSuspending() {
		assertStartupFailure(PlainFallback::class.java, "@DistributedLock on PlainFallback.report():",
			"attribute 'fallbackMethod' names 'cached', but PlainFallback has no method cached() or "
				+ "cached(LockAcquisitionException) that is a suspend function too")
	}

	private fun assertStartupFailure(type: Class<*>, vararg messages: String) {
		runner().withBean(type).run { context ->
			assertThat(context).hasFailed()
			var failure: Throwable? = context.startupFailure
			while (failure != null && failure !is LockConfigurationException) {
				failure = failure.cause
			}
			assertThat(failure).isNotNull()
			for (message in messages) {
				assertThat(failure!!.message).contains(message)
			}
		}
	}

	private fun ApplicationContext.stock(): Stock = getBean(Stock::class.java)

	private fun keyExists(key: String): Boolean = redis.server().template().hasKey("distlock:{$key}") == true

	private fun otherInstanceCanTake(key: String, waitTime: Duration): Boolean =
		RedisLockRegistry(redis.server().connectionFactory()).use { other ->
			try {
				val lease = other.tryAcquire(key, waitTime)
				lease.ifPresent(LockLease::release)
				lease.isPresent
			}
			catch (ex: LockAcquisitionException) {
				// On a loaded machine the last attempt's answer can miss the wait time's bound: not
				// taken either way.
				false
			}
		}

	open class MinimumHoldSuspend {
		@DistributedLock(key = "'minimum'", holdAtLeast = "1s")
		open suspend fun work() {
		}
	}

	open class MinimumHoldFlow {
		@DistributedLock(key = "'minimum'", holdAtLeast = "1s")
		open fun lines(): Flow<String> = flowOf("line")
	}

	open class HotFlow {
		@DistributedLock(key = "'prices'")
		open fun prices(): StateFlow<Int> = MutableStateFlow(1)
	}

	open class PlainFallback {
		@DistributedLock(key = "'report'", onFailure = OnFailure.FALLBACK, fallbackMethod = "cached")
		open suspend fun report(): String = "fresh"

		open fun cached(): String = "cached"
	}

	/**
	 * A repository that writes with the fencing token it is given, and notes the token the
	 * registry reports as held at that moment.
	 */
	open class Orders {

		@Volatile
		var whileReserving: () -> Long = { 0L }

		@Volatile
		var heldToken: Long = 0

		open suspend fun reserve(productId: Long, quantity: Int, fencingToken: Long): Long {
			heldToken = whileReserving()
			return fencingToken
		}
	}

	open class Stock(private val orders: Orders) {

		private val calls = AtomicInteger()

		/** The proxy of this bean, so that a nested call goes through the advice. */
		@org.springframework.beans.factory.annotation.Autowired
		@org.springframework.context.annotation.Lazy
		open lateinit var self: Stock

		open fun calls(): Int = calls.get()

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open suspend fun increment(counter: Counter, id: String): Int = counter.increment()

		open suspend fun incrementUnlocked(counter: Counter): Int = counter.increment()

		@StockLock("'stock:' + #id")
		open suspend fun incrementComposed(counter: Counter, id: String): Int = counter.increment()

		@StockLock("'stock:' + #id")
		open suspend fun composedKey(id: String): String = CoroutineLockContext.current().key()

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open fun incrementThrice(counter: Counter, id: String): Flow<Int> = flow {
			repeat(3) { emit(counter.increment()) }
		}

		open fun incrementThriceUnlocked(counter: Counter): Flow<Int> = flow {
			repeat(3) { emit(counter.increment()) }
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open suspend fun hold(id: String, finish: CompletableDeferred<String>): String = finish.await()

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open fun holdFlow(id: String, finish: CompletableDeferred<Unit>): Flow<String> {
			calls.incrementAndGet()
			return flow {
				emit("first")
				finish.await()
				emit("last")
			}
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open suspend fun holdForever(id: String, cancelled: AtomicBoolean) {
			try {
				awaitCancellation()
			}
			finally {
				cancelled.set(true)
			}
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open suspend fun loadThenStream(id: String, finish: CompletableDeferred<Unit>): Flow<Long> {
			val loaded = CoroutineLockContext.current().fencingToken()
			return flow {
				emit(loaded)
				finish.await()
				emit(CoroutineLockContext.current().fencingToken())
			}
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open suspend fun waitLong(id: String) {
			calls.incrementAndGet()
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "30s")
		open fun ticks(id: String): Flow<Int> = flow {
			var i = 0
			while (true) {
				emit(i++)
				delay(50)
			}
		}

		@DistributedLock(key = "'nightly'", waitTime = "0s", onFailure = OnFailure.SKIP)
		open suspend fun nightly(): String? {
			calls.incrementAndGet()
			return "ran"
		}

		@DistributedLock(key = "'nightly'", waitTime = "0s", onFailure = OnFailure.SKIP)
		open fun nightlyLines(): Flow<String> = flow {
			calls.incrementAndGet()
			emit("ran")
		}

		@DistributedLock(key = "'report'", waitTime = "0s", onFailure = OnFailure.FALLBACK,
			fallbackMethod = "cachedReport")
		open suspend fun report(region: String): String {
			calls.incrementAndGet()
			return "fresh $region"
		}

		open suspend fun cachedReport(region: String, ex: LockAcquisitionException): String {
			delay(1)
			return "cached $region ${ex.key}"
		}

		@DistributedLock(key = "'report'", waitTime = "0s", onFailure = OnFailure.FALLBACK,
			fallbackMethod = "cachedReportLines")
		open fun reportLines(region: String): Flow<String> = flow {
			calls.incrementAndGet()
			emit("fresh")
			emit(region)
		}

		open fun cachedReportLines(region: String): Flow<String> = flowOf("cached", region)

		@DistributedLock(key = "'export'", waitTime = "300ms")
		open suspend fun export(): String {
			calls.incrementAndGet()
			return "exported"
		}

		@DistributedLock(key = "'export'", waitTime = "300ms")
		open fun exportLines(): Flow<String> = flow {
			calls.incrementAndGet()
			emit("exported")
		}

		// tag::annotation[]
		@DistributedLock(key = "'stock:' + #productId", waitTime = "2s")
		open suspend fun reserve(productId: Long, quantity: Int): Long {
			val lease = CoroutineLockContext.current()
			return orders.reserve(productId, quantity, lease.fencingToken())
		}

		@DistributedLock(key = "'stock:' + #productId", waitTime = "2s")
		open fun restock(productId: Long, quantities: List<Int>): Flow<Long> = flow {
			val token = CoroutineLockContext.current().fencingToken()
			for (quantity in quantities) {
				emit(orders.reserve(productId, -quantity, token))
			}
		}
		// end::annotation[]

		@DistributedLock(key = "'stock:' + #id", waitTime = "0s")
		open suspend fun outer(id: String): List<LockLease> =
			listOf(CoroutineLockContext.current(), self.inner(id))

		@DistributedLock(key = "'stock:' + #id", waitTime = "0s")
		open suspend fun inner(id: String): LockLease = CoroutineLockContext.current()
	}

	/** `@DistributedLock` composed into an annotation of the application's own, in Kotlin. */
	@Target(AnnotationTarget.FUNCTION)
	@Retention(AnnotationRetention.RUNTIME)
	@DistributedLock(waitTime = "30s")
	annotation class StockLock(@get:AliasFor(annotation = DistributedLock::class, attribute = "key") val value: String)

}

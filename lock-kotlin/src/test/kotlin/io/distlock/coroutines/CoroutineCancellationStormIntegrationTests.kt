package io.distlock.coroutines

import io.distlock.core.LockRequest
import io.distlock.redis.RedisLockRegistry
import io.distlock.test.redis.RedisServerExtension
import io.distlock.test.registry.LockRegistries
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.locks.LockSupport

/**
 * Coroutines cancelled at any moment in [withLock], while their lock is on its way, while their
 * block runs or as it ends, leave no key behind and nothing for the watchdog to renew. A
 * competing process takes the lock now and then, so that some coroutines wait first.
 */
@Timeout(60)
class CoroutineCancellationStormIntegrationTests {

	companion object {
		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private val LEASE_TIME: Duration = Duration.ofSeconds(1)
	}

	@JvmField
	@RegisterExtension
	val registries = LockRegistries.on(redis)

	private val executor = Executors.newSingleThreadExecutor()

	@AfterEach
	fun close() {
		executor.shutdownNow()
	}

	@Test
	fun coroutinesCancelledAtRandomMomentsLeaveNoKeyAndNothingRenewed() {
		val registry = register()
		val competitor = register()
		val key = registries.randomKey()
		val stop = AtomicBoolean()
		val competing = executor.submit {
			while (!stop.get()) {
				competitor.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(5))).use {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2))
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3))
			}
		}
		val scope = CoroutineScope(SupervisorJob() + Dispatchers.Default)
		val blocksStarted = AtomicInteger()
		var cancelledEarly = 0
		repeat(300) {
			val job = scope.launch {
				runCatching {
					registry.withLock(LockRequest.of(key).waitTime(Duration.ofSeconds(5))) {
						blocksStarted.incrementAndGet()
						delay(ThreadLocalRandom.current().nextLong(0, 3))
					}
				}
			}
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 4_000_000))
			if (job.isActive) {
				cancelledEarly++
			}
			job.cancel()
		}
		stop.set(true)
		competing.get(10, TimeUnit.SECONDS)
		println("Coroutine storm: $blocksStarted blocks started, $cancelledEarly cancelled before the end")
		assertThat(blocksStarted.get()).`as`("coroutines whose lock was granted").isPositive()
		assertThat(cancelledEarly).`as`("coroutines cancelled on their way").isPositive()
		// A grant that arrived after its coroutine was cancelled is released without waiting for anybody.
		await().atMost(Duration.ofSeconds(5)).untilAsserted {
			assertThat(registry.localKeyCount()).isZero()
			assertThat(registry.heldLocks()).isEmpty()
			assertThat(redis.server().template().hasKey("distlock:{$key}")).isFalse()
		}
		val scripts = redis.server().scriptCalls()
		// More than a lease: a watched grant would have been renewed several times by now.
		Thread.sleep(LEASE_TIME.toMillis() * 3 / 2)
		assertThat(redis.server().scriptCalls()).`as`("scripts sent once everyone stopped").isEqualTo(scripts)
		assertThat(redis.server().template().hasKey("distlock:{$key}")).isFalse()
	}

	private fun register(): RedisLockRegistry = registries.redis { it.leaseTime(LEASE_TIME) }

}

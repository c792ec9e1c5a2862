package io.distlock.coroutines

import io.distlock.core.LockContext
import io.distlock.core.LockLostException
import io.distlock.core.LockRequest
import io.distlock.core.StaleFencingTokenException
import io.distlock.fencing.ReactiveRedisFencing
import io.distlock.fencing.RedisFencing
import io.distlock.redis.RedisLockRegistry
import io.distlock.test.redis.RedisServerExtension
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.delay
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.catchThrowable
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.data.redis.core.ReactiveStringRedisTemplate
import java.time.Duration
import java.util.UUID

/**
 * Fenced writes from coroutine holds, on a real Redis: the token of the coroutine context reaches
 * the reactive helpers when their `Mono` is awaited, and the blocking ones through
 * [withLockContext]. A coroutine whose fixed lease ran out while it was paused, after a second
 * holder took the lock and wrote, is refused by both; a plain template write from the same
 * coroutine lands (the negative control).
 */
@Timeout(60)
class CoroutineFencingIntegrationTests {

	companion object {
		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()
	}

	private lateinit var first: RedisLockRegistry

	private lateinit var second: RedisLockRegistry

	private lateinit var fencing: RedisFencing

	private lateinit var reactiveFencing: ReactiveRedisFencing

	private val key = "stock:" + UUID.randomUUID()

	@BeforeEach
	fun start() {
		first = RedisLockRegistry.builder(redis.server().connectionFactory()).build()
		second = RedisLockRegistry.builder(redis.server().connectionFactory()).build()
		fencing = RedisFencing(redis.server().template())
		reactiveFencing = ReactiveRedisFencing(ReactiveStringRedisTemplate(redis.server().connectionFactory()))
		redis.server().template().opsForValue().set(key, "10")
	}

	@AfterEach
	fun stop() {
		first.close()
		second.close()
	}

	@Test
	fun aCoroutineHoldWritesWithTheTokenOfItsContext(): Unit = runBlocking(Dispatchers.Default) {
		second.withLock(LockRequest.of(key).waitTime(Duration.ofSeconds(2))) { lease ->
			val stock = reactiveFencing.get(key).awaitSingleOrNull()!!.toInt()
			reactiveFencing.set(key, (stock - 1).toString()).awaitSingleOrNull()
			withContext(Dispatchers.IO) {
				withLockContext {
					assertThat(LockContext.current()).isSameAs(lease)
					fencing.set(key, (stock - 2).toString())
				}
			}
		}
		assertThat(redis.server().template().opsForValue().get(key)).isEqualTo("8")
		assertThat(LockContext.find()).isEmpty
		assertThat(catchThrowable { runBlocking { withLockContext { } } }).isInstanceOf(IllegalStateException::class.java)
	}

	@Test
	fun aStaleCoroutineHoldersWritesAreRefused() {
		val failures = staleCoroutineWrites {
			listOf(
				runCatching { reactiveFencing.set(key, "9").awaitSingleOrNull() }.exceptionOrNull(),
				runCatching { withLockContext { fencing.set(key, "9") } }.exceptionOrNull(),
			)
		}
		assertThat(failures).hasSize(2).allSatisfy { assertThat(it).isInstanceOf(StaleFencingTokenException::class.java) }
		assertThat(redis.server().template().opsForValue().get(key)).isEqualTo("8")
	}

	@Test
	fun negativeControlAPlainWriteFromTheStaleCoroutineLands() {
		staleCoroutineWrites {
			redis.server().template().opsForValue().set(key, "9")
			emptyList()
		}
		assertThat(redis.server().template().opsForValue().get(key)).isEqualTo("9")
	}

	/**
	 * The first registry's coroutine takes the key with a 300 ms lease and reads the stock
	 * through the fence, then is paused past its lease; meanwhile the second holder reads and
	 * writes 8. Then the first coroutine runs [write] (not cancelled: a write that was under way)
	 * and its failures are returned.
	 */
	private fun staleCoroutineWrites(write: suspend () -> List<Throwable?>): List<Throwable?> = runBlocking(Dispatchers.Default) {
		var failures: List<Throwable?> = emptyList()
		val outcome = catchThrowable {
			runBlocking(Dispatchers.Default) {
				first.withLock(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofMillis(300))) { lease ->
					withContext(NonCancellable) {
						reactiveFencing.get(key).awaitSingleOrNull()
						withTimeout(10_000) {
							while (lease.isValid) {
								delay(20)
							}
						}
						second.withLock(LockRequest.of(key).waitTime(Duration.ofSeconds(5))) {
							val stock = reactiveFencing.get(key).awaitSingleOrNull()!!.toInt()
							reactiveFencing.set(key, (stock - 2).toString()).awaitSingleOrNull()
						}
						failures = write()
					}
				}
			}
		}
		assertThat(outcome).isInstanceOf(LockLostException::class.java)
		failures
	}

}

package io.distlock.coroutines

import io.distlock.annotation.DistributedLock
import io.distlock.autoconfigure.DistlockAutoConfiguration
import io.distlock.core.LockRequest
import io.distlock.redis.RedisLockRegistry
import io.lettuce.core.RedisClient
import io.lettuce.core.RedisURI
import io.lettuce.core.api.async.RedisAsyncCommands
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.sync.Semaphore
import kotlinx.coroutines.sync.withPermit
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.data.redis.connection.RedisStandaloneConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import java.time.Duration

/**
 * A child JVM of [CoroutineLocksMultiProcessIntegrationTests]: many coroutines hold one key at
 * once, each incrementing a non-atomic counter in Redis (a read, a 1 ms `delay()`, a write, on
 * Lettuce's asynchronous commands awaited without blocking) and appending this process's pid to
 * `<counter key>:holders`. Arguments: port, lock key, counter key, holds, holds in flight at
 * once, and the lock: `extension` ([withLock] on a [RedisLockRegistry]), `annotated` (a
 * `@DistributedLock` suspend function in a Spring context with the distlock auto-configuration)
 * or `unlocked` (the negative control). Prints `READY` once connected, starts on a `GO` line on
 * its standard input, and prints `DONE failures=<n>`.
 */
object SuspendCounterWorker {

	@JvmStatic
	fun main(args: Array<String>) {
		val port = args[0].toInt()
		val lockKey = args[1]
		val counter = RedisCounter(args[0].toInt(), args[2])
		val holds = args[3].toInt()
		val inFlight = args[4].toInt()
		val failures = when (args[5]) {
			"extension" -> {
				val factory = LettuceConnectionFactory(RedisStandaloneConfiguration("127.0.0.1", port))
				factory.afterPropertiesSet()
				factory.start()
				val registry = RedisLockRegistry(factory)
				registry.acquire("$lockKey:warm-up", Duration.ofSeconds(30)).release()
				val request = LockRequest.of(lockKey).waitTime(Duration.ofSeconds(30))
				val failures = run(holds, inFlight) { registry.withLock(request) { counter.increment() } }
				registry.close()
				factory.destroy()
				failures
			}
			"annotated" -> {
				var failures = -1
				ApplicationContextRunner()
					.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
						AopAutoConfiguration::class.java, DistlockAutoConfiguration::class.java))
					.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=$port")
					.withBean(Ledger::class.java)
					.run { context ->
						val ledger = context.getBean(Ledger::class.java)
						runBlocking { ledger.increment("$lockKey:warm-up", RedisCounter.NONE) }
						failures = run(holds, inFlight) { ledger.increment(lockKey, counter) }
					}
				failures
			}
			else -> run(holds, inFlight) { counter.increment() }
		}
		println("DONE failures=$failures")
		System.out.flush()
		counter.close()
		System.exit(0)
	}

	/**
	 * Print `READY`, wait for `GO`, then run [hold] that many times on `Dispatchers.Default`, at
	 * most [inFlight] at once, and return how many threw.
	 */
	private fun run(holds: Int, inFlight: Int, hold: suspend () -> Unit): Int {
		println("READY")
		System.out.flush()
		while (readlnOrNull() != "GO") {
			// Wait for the test's start signal, so that both processes compete from the start.
		}
		var failures = 0
		runBlocking(Dispatchers.Default) {
			val permits = Semaphore(inFlight)
			val jobs = List(holds) {
				launch {
					permits.withPermit {
						try {
							hold()
						}
						catch (ex: Exception) {
							synchronized(this@SuspendCounterWorker) { failures++ }
							ex.printStackTrace(System.out)
						}
					}
				}
			}
			jobs.forEach { it.join() }
		}
		return failures
	}

	/** The Spring bean whose annotated suspend function holds the lock. */
	open class Ledger {

		@DistributedLock(key = "#lockKey", waitTime = "30s")
		open suspend fun increment(lockKey: String, counter: RedisCounter) {
			counter.increment()
		}
	}

	/** The counter in Redis: read, suspend 1 ms, write; then record who incremented. */
	class RedisCounter(port: Int, private val key: String) : AutoCloseable {

		private val client: RedisClient? = if (port > 0) RedisClient.create(RedisURI.create("127.0.0.1", port)) else null

		private val commands: RedisAsyncCommands<String, String>? = client?.connect()?.async()

		private val holder = ProcessHandle.current().pid().toString()

		suspend fun increment() {
			val commands = commands ?: return
			val read = commands.get(key).await().toInt()
			delay(1)
			commands.set(key, (read + 1).toString()).await()
			commands.rpush("$key:holders", holder).await()
		}

		override fun close() {
			client?.shutdown()
		}

		companion object {
			/** A counter that counts nothing, for warming up. */
			val NONE = RedisCounter(0, "none")
		}
	}
}

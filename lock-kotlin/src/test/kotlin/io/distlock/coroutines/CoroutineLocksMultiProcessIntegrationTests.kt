package io.distlock.coroutines

import io.distlock.test.redis.RedisServerExtension
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension
import java.nio.file.Path
import java.util.UUID
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * Kotlin `suspend` bodies across two JVMs on one Redis: each child JVM ([SuspendCounterWorker])
 * runs many holds on one key at once, whose bodies increment a non-atomic counter in Redis across
 * a `delay()`. Under [withLock], and under a `@DistributedLock` suspend function in a Spring
 * context, the counter ends exact; the same processes without the lock lose updates, the negative
 * control. The child JVMs are started here from this JVM's classpath: the fault suite's `ChildJvm`
 * lives in distlock-test's test sources, which this module does not see.
 */
@Timeout(120)
class CoroutineLocksMultiProcessIntegrationTests {

	companion object {
		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		/** Holds per process; eight of them in flight at once in each. */
		private const val HOLDS = 100

		private const val IN_FLIGHT = 8
	}

	@Test
	fun withLockKeepsTheCounterExactAcrossTwoJvms() {
		assertThat(runCounter("extension")).isEqualTo(2 * HOLDS)
	}

	@Test
	fun annotatedSuspendFunctionKeepsTheCounterExactAcrossTwoJvms() {
		assertThat(runCounter("annotated")).isEqualTo(2 * HOLDS)
	}

	@Test
	fun negativeControlTheSameSuspendBodiesWithoutTheLockAcrossTwoJvmsLoseUpdates() {
		assertThat(runCounter("unlocked")).isLessThan(2 * HOLDS)
	}

	/** Run the workload in two child JVMs started together and return the counter's final value. */
	private fun runCounter(mode: String): Int {
		val lockKey = "coroutine-jvms:" + UUID.randomUUID()
		val counterKey = "counter:" + UUID.randomUUID()
		val template = redis.server().template()
		template.opsForValue().set(counterKey, "0")
		val start = System.nanoTime()
		Child.start(redis.server().port().toString(), lockKey, counterKey, HOLDS.toString(), IN_FLIGHT.toString(),
			mode).use { first ->
			Child.start(redis.server().port().toString(), lockKey, counterKey, HOLDS.toString(),
				IN_FLIGHT.toString(), mode).use { second ->
				first.awaitLine("READY")
				second.awaitLine("READY")
				first.send("GO")
				second.send("GO")
				assertThat(first.awaitLine("DONE")).`as`(first::output).isEqualTo("DONE failures=0")
				assertThat(second.awaitLine("DONE")).`as`(second::output).isEqualTo("DONE failures=0")
			}
		}
		val value = template.opsForValue().get(counterKey)!!.toInt()
		val holders = template.opsForList().range("$counterKey:holders", 0, -1)!!
		val switches = holders.zipWithNext().count { (a, b) -> a != b }
		println("Suspend $mode across two JVMs: counter $value of ${holders.size} increments, $switches switches " +
			"between the JVMs, ${TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)} ms")
		return value
	}

	/** A [SuspendCounterWorker] in a new JVM with this JVM's classpath; killed on close. */
	private class Child private constructor(private val process: Process) : AutoCloseable {

		private val lines = LinkedBlockingQueue<String>()

		private val output = StringBuffer()

		init {
			Thread {
				process.inputStream.bufferedReader().forEachLine {
					output.append(it).append('\n')
					lines.add(it)
				}
			}.apply { isDaemon = true }.start()
		}

		fun output(): String = output.toString()

		fun send(line: String) {
			process.outputStream.write("$line\n".toByteArray())
			process.outputStream.flush()
		}

		/** The first line starting with [prefix] within 60 s, skipping the others. */
		fun awaitLine(prefix: String): String {
			val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
			while (true) {
				val line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)
					?: throw IllegalStateException("Child JVM printed no line starting with '$prefix' within 60 s; " +
						"it printed:\n" + output())
				if (line.startsWith(prefix)) {
					return line
				}
			}
		}

		override fun close() {
			process.destroyForcibly()
			process.waitFor(10, TimeUnit.SECONDS)
		}

		companion object {
			fun start(vararg arguments: String): Child {
				val command = listOf(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
					"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
					SuspendCounterWorker::class.java.name) + arguments
				return Child(ProcessBuilder(command).redirectErrorStream(true).start())
			}
		}
	}
}

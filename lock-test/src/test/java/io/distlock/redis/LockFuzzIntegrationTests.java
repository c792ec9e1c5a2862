package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.detector.LostUpdateCounter;
import io.distlock.detector.Workers;
import io.distlock.test.process.CounterWorkers;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion measured the way ShedLock's fuzz test and Jepsen's lock-set workload do: a
 * non-atomic counter (read, sleep 1 ms, write) incremented under the lock must end exact. Each
 * detector runs once with the lock switched off, and must then see lost updates: the negative
 * control that proves it can see a violation.
 */
@Timeout(120)
class LockFuzzIntegrationTests {

	private static final int THREADS = 8;

	private static final int INCREMENTS = 40;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void eightThreadsOfOneRegistryNeverLoseAnUpdate() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		String key = this.registries.randomKey();
		assertThat(runCounter((thread) -> registry.obtain(key))).isEqualTo(THREADS * INCREMENTS);
	}

	@Test
	void eightRegistriesAsEightProcessesNeverLoseAnUpdate() throws Exception {
		// One registry per thread: exclusion comes from Redis alone, not from the local gate.
		List<RedisLockRegistry> perThread = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			perThread.add(this.registries.redis());
		}
		String key = this.registries.randomKey();
		assertThat(runCounter((thread) -> perThread.get(thread).obtain(key))).isEqualTo(THREADS * INCREMENTS);
	}

	@Test
	void negativeControlWithoutTheLockLosesUpdates() throws Exception {
		assertThat(runCounter((thread) -> null)).isLessThan(THREADS * INCREMENTS);
	}

	@Test
	void twoJvmsOfFourThreadsNeverLoseAnUpdate() throws Exception {
		assertThat(runCounterInTwoJvms(true)).isEqualTo(2 * 4 * INCREMENTS);
	}

	@Test
	void negativeControlWithoutTheLockAcrossTwoJvmsLosesUpdates() throws Exception {
		assertThat(runCounterInTwoJvms(false)).isLessThan(2 * 4 * INCREMENTS);
	}

	/**
	 * Run the counter workload in this JVM; a {@code null} lock means no locking.
	 */
	private int runCounter(Function<Integer, DistLock> lockOfThread) throws Exception {
		LostUpdateCounter counter = new LostUpdateCounter();
		Workers.runAll(Executors.newFixedThreadPool(THREADS), THREADS, (worker) -> {
			DistLock lock = lockOfThread.apply(worker);
			for (int i = 0; i < INCREMENTS; i++) {
				counter.increment(lock);
			}
		});
		return counter.value();
	}

	private int runCounterInTwoJvms(boolean locked) throws Exception {
		String lockKey = this.registries.randomKey();
		String counterKey = "counter:" + UUID.randomUUID();
		redis.server().template().opsForValue().set(counterKey, "0");
		CounterWorkers.runTwo(Integer.toString(redis.server().port()), lockKey, counterKey, INCREMENTS,
				locked ? "locked" : "unlocked", Duration.ofSeconds(90));
		return Integer.parseInt(redis.server().template().opsForValue().get(counterKey));
	}

}

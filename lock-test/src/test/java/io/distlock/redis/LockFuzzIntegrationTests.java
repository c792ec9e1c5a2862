package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
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
 * <p>
 * Two workloads. In the blocking one, threads, registries or JVMs wait for one key's lock. In
 * ShedLock's own, workers never wait: they ask with no wait time and ask again at once when
 * refused, as a scheduled job does on every node. Two keys are shared by eight workers, one of
 * which stops early. Refusals at zero wait, from the local gate or from Redis, are the hot path
 * there, where the blocking workload exercises waits and handoffs.
 */
@Timeout(120)
class LockFuzzIntegrationTests {

	private static final int THREADS = 8;

	private static final int INCREMENTS = 40;

	private static final int WORKERS = 8;

	/** The first spinning worker stops early, so the others contend without it for a while. */
	private static final int SHORT_INCREMENTS = 10;

	private static final int EXPECTED_EVEN = (WORKERS / 2 - 1) * INCREMENTS + SHORT_INCREMENTS;

	private static final int EXPECTED_ODD = WORKERS / 2 * INCREMENTS;

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

	@Test
	void workersOfOneRegistrySpinningOnTryAcquireNeverLoseAnUpdate() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		Counters counters = runSpinning((worker) -> registry, Duration.ZERO, true);
		assertThat(counters.values()).containsExactly(EXPECTED_EVEN, EXPECTED_ODD);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void registriesAsProcessesSpinningOnTryAcquireNeverLoseAnUpdate() throws Exception {
		List<RedisLockRegistry> perWorker = new ArrayList<>();
		for (int i = 0; i < WORKERS; i++) {
			perWorker.add(this.registries.redis());
		}
		Counters counters = runSpinning(perWorker::get, Duration.ZERO, true);
		assertThat(counters.values()).containsExactly(EXPECTED_EVEN, EXPECTED_ODD);
	}

	@Test
	void releasesThatKeepTheKeyForAMinimumHoldNeverLoseAnUpdate() throws Exception {
		// As ShedLock's fuzz configuration: every release keeps the key until 5 ms after its grant.
		// Four registries, so each key is contended by two processes of two workers each.
		List<RedisLockRegistry> four = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			four.add(this.registries.redis());
		}
		Counters counters = runSpinning((worker) -> four.get(worker % 4), Duration.ofMillis(5), true);
		assertThat(counters.values()).containsExactly(EXPECTED_EVEN, EXPECTED_ODD);
	}

	@Test
	void negativeControlSpinningWithoutTheLockLosesUpdates() throws Exception {
		Counters counters = runSpinning((worker) -> this.registries.redis(), Duration.ZERO, false);
		assertThat(counters.values().get(0) + counters.values().get(1)).isLessThan(EXPECTED_EVEN + EXPECTED_ODD);
	}

	/**
	 * Run the spinning workload: even workers on one key, odd workers on the other.
	 * @param registryOfWorker the registry each worker asks
	 * @param holdAtLeast the minimum hold of every release
	 * @param locked whether the increments take the lock at all
	 */
	private Counters runSpinning(IntFunction<LockRegistry> registryOfWorker, Duration holdAtLeast, boolean locked)
			throws Exception {
		Counters counters = new Counters();
		String[] keys = { "spin-even:" + UUID.randomUUID(), "spin-odd:" + UUID.randomUUID() };
		Workers.runAll(Executors.newFixedThreadPool(WORKERS), WORKERS, (worker) -> {
			LockRegistry registry = registryOfWorker.apply(worker);
			int job = worker % 2;
			int increments = (worker == 0) ? SHORT_INCREMENTS : INCREMENTS;
			for (int done = 0; done < increments;) {
				Optional<LockLease> lease = locked ? registry.tryAcquire(keys[job], Duration.ZERO)
						: Optional.empty();
				if (locked && lease.isEmpty()) {
					// Refused: ask again almost at once, as a busy scheduler would.
					LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
					continue;
				}
				try {
					counters.increment(job);
				}
				finally {
					if (lease.isPresent()) {
						lease.get().release(holdAtLeast);
					}
				}
				done++;
			}
		});
		return counters;
	}

	/** Two counters whose increments read, sleep and write back. */
	private static final class Counters {

		private final int[] values = new int[2];

		void increment(int job) throws InterruptedException {
			int read;
			synchronized (this.values) {
				read = this.values[job];
			}
			Thread.sleep(1);
			synchronized (this.values) {
				this.values[job] = read + 1;
			}
		}

		List<Integer> values() {
			synchronized (this.values) {
				return List.of(this.values[0], this.values[1]);
			}
		}

	}

}

package io.distlock.test.process;

import java.time.Duration;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process whose threads run the fault suite's exclusion workload: under the lock (or without,
 * for the negative control) each enters the oracle's witness, increments the oracle's counter
 * (read, sleep 2 ms, write) and leaves the witness, then appends the hold to the oracle's
 * history ({@code start end validUntil token holder}, on {@link System#nanoTime()}). Arguments: lock port, oracle port, key,
 * threads, grants per thread, {@code locked} or {@code unlocked}. Prints
 * {@code DONE failures=<n>}.
 */
public final class WitnessWorkerMain {

	private WitnessWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		RedisLockRegistry registry = new RedisLockRegistry(WorkerThreads.connect(Integer.parseInt(args[0])));
		StringRedisTemplate oracle = new StringRedisTemplate(WorkerThreads.connect(Integer.parseInt(args[1])));
		String key = args[2];
		int threads = Integer.parseInt(args[3]);
		int grants = Integer.parseInt(args[4]);
		boolean locked = "locked".equals(args[5]);
		int failures = WorkerThreads.run(threads, (t) -> {
			String holder = ProcessHandle.current().pid() + "-" + t;
			DistLock lock = locked ? registry.obtain(key) : null;
			for (int i = 0; i < grants; i++) {
				WorkerThreads.underLock(lock, () -> {
					long start = System.nanoTime();
					LockLease lease = (lock != null) ? lock.lease() : null;
					Witness.enter(oracle, key, holder);
					String value = oracle.opsForValue().get("counter:" + key);
					WorkerThreads.sleep(Duration.ofMillis(2));
					oracle.opsForValue().set("counter:" + key, Integer.toString(Integer.parseInt(value) + 1));
					Witness.leave(oracle, key, holder);
					long end = System.nanoTime();
					// The history of T34: when the hold began and ended, and until when its lease
					// was valid (the same monotonic clock in every process of this host).
					long validUntil = (lease != null) ? start + lease.remaining().toNanos() : Long.MAX_VALUE;
					long token = (lease != null) ? lease.fencingToken() : 0;
					oracle.opsForList()
						.rightPush("history:" + key, start + " " + end + " " + validUntil + " " + token + " " + holder);
				});
			}
		});
		System.out.println("DONE failures=" + failures);
		System.out.flush();
		System.exit(0);
	}

}

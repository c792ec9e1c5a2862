package io.distlock.detector;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the storms of abandoned acquisitions share: a competing process that takes the lock now
 * and then, so that some of the storm's calls wait first, and the detector of their leftovers.
 * Once every caller has stopped, the registry holds nothing, the key is gone from Redis, and no
 * script reaches Redis for more than a lease: a grant the watchdog still renewed would show there.
 */
public final class CancellationStorm {

	private CancellationStorm() {
	}

	/**
	 * Start a competitor that takes the lock of the request for 2 ms every 5 ms or so, until it is
	 * stopped.
	 * @param executor where the competitor runs
	 * @param competitor the competing process's registry
	 * @param request the lock it takes, with a wait time
	 * @return the competitor
	 */
	public static Competitor compete(ExecutorService executor, LockRegistry competitor, LockRequest request) {
		AtomicBoolean stop = new AtomicBoolean();
		Future<?> competing = executor.submit(() -> {
			while (!stop.get()) {
				try (LockLease lease = competitor.acquire(request)) {
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
			}
			return null;
		});
		return () -> {
			stop.set(true);
			competing.get(10, TimeUnit.SECONDS);
		};
	}

	/**
	 * Assert that nothing of the storm is left: the registry holds nothing and the key is gone
	 * (waiting 5 s at most, since a grant that arrived after its caller gave up is released
	 * without waiting for anybody), and no script reaches Redis for one and a half leases.
	 * @param redis the server
	 * @param registry the registry of the storm's calls
	 * @param key the key
	 * @param leaseTime the registry's lease
	 * @throws InterruptedException if interrupted
	 */
	public static void assertNothingLeftAndNothingRenewed(RedisServer redis, RedisLockRegistry registry, String key,
			Duration leaseTime) throws InterruptedException {
		String lockKey = "distlock:{" + key + "}";
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(registry.localKeyCount()).isZero();
			assertThat(registry.heldLocks()).isEmpty();
			assertThat(redis.template().hasKey(lockKey)).isFalse();
		});
		long scripts = redis.scriptCalls();
		// More than a lease: a watched grant would have been renewed several times by now.
		Thread.sleep(leaseTime.toMillis() * 3 / 2);
		assertThat(redis.scriptCalls()).as("scripts sent once everyone stopped").isEqualTo(scripts);
		assertThat(redis.template().hasKey(lockKey)).isFalse();
	}

	/** A running competitor. */
	@FunctionalInterface
	public interface Competitor {

		/**
		 * Stop the competitor and wait until it has let the lock go.
		 * @throws Exception if it failed, or did not stop within 10 s
		 */
		void stop() throws Exception;

	}

}

package io.distlock.detector;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;

/**
 * Measures a handoff between two registries: the holder takes the key, a waiter of the other
 * registry waits for it (up to 30 s) on a thread of its own, and the holder releases; the
 * result is the time from the release to the waiter's grant. A waiter that is woken by the
 * release gets it in a round trip or two; one left to its retry interval or its wait time shows
 * here.
 */
public final class HandoffLatency {

	private HandoffLatency() {
	}

	/**
	 * Measure one handoff.
	 * @param holder the registry that takes the key first
	 * @param waiter the registry that waits for it
	 * @param key the key
	 * @param waiterHeadStart how long the waiter waits before the release, long enough for it
	 * to be waiting
	 * @return the milliseconds from the release to the waiter's grant
	 * @throws Exception if the waiter failed or was not granted within 30 s
	 */
	public static long millis(LockRegistry holder, LockRegistry waiter, String key, Duration waiterHeadStart)
			throws Exception {
		LockLease lease = holder.acquire(key, Duration.ZERO);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Long> acquiredAt = executor.submit(() -> {
				try (LockLease next = waiter.acquire(key, Duration.ofSeconds(30))) {
					return System.nanoTime();
				}
			});
			Thread.sleep(waiterHeadStart.toMillis());
			long releasedAt = System.nanoTime();
			lease.release();
			return TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(30, TimeUnit.SECONDS) - releasedAt);
		}
		finally {
			executor.shutdownNow();
		}
	}

}

package io.distlock.detector;

import io.distlock.core.DistLock;

/**
 * The lost-update detector of ShedLock's fuzz test and Jepsen's lock-set workload: an increment
 * that reads, sleeps 1 ms and writes back. Two increments that overlap lose one of the updates,
 * so the final value falls short of the number of increments exactly when exclusion failed.
 * <p>
 * The field is volatile so that a shortfall can only come from overlapping increments, never
 * from a stale read; the read-sleep-write itself is deliberately not atomic.
 */
public final class LostUpdateCounter {

	private volatile int value;

	/**
	 * Increment under the lock, or without any lock when it is {@code null} (the negative
	 * control).
	 */
	public void increment(DistLock lock) throws InterruptedException {
		if (lock != null) {
			lock.lock();
		}
		try {
			int read = this.value;
			Thread.sleep(1);
			this.value = read + 1;
		}
		finally {
			if (lock != null) {
				lock.unlock();
			}
		}
	}

	public int value() {
		return this.value;
	}

}

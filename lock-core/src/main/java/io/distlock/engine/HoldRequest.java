package io.distlock.engine;

import java.time.Duration;

import io.distlock.store.LockMode;

/**
 * One request for a hold, as the engine sees it.
 *
 * @param mode the kind of lock
 * @param key the user key
 * @param name the logical name
 * @param waitNanos how long to wait; 0 tries once; {@link #WAIT_FOREVER} never gives up
 * @param fixedLease the fixed lease, or {@code null} for the watchdog
 * @param ownedByThread whether the calling thread owns the hold (and may re-enter it)
 * @param interruptible whether an interrupt ends the wait
 */
record HoldRequest(LockMode mode, String key, String name, long waitNanos, Duration fixedLease, boolean ownedByThread,
		boolean interruptible) {

	/** A wait without a deadline, for {@code lock()} and {@code lockInterruptibly()}. */
	static final long WAIT_FOREVER = Long.MAX_VALUE;

	boolean forever() {
		return this.waitNanos == WAIT_FOREVER;
	}

	long remainingNanos(long startNanos, long now) {
		return forever() ? WAIT_FOREVER : this.waitNanos - (now - startNanos);
	}

}

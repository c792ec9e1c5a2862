package io.distlock.detector;

import java.util.concurrent.TimeUnit;

import io.distlock.core.LockLease;

/**
 * Reads a lease's validity deadline as a {@link System#nanoTime()} value, the instant after
 * which {@link LockLease#isValid()} is false whether or not the loss callback has run yet.
 * <p>
 * The lease only tells its {@link LockLease#remaining() remaining} validity, measured on a
 * {@code nanoTime} read inside the call; adding a {@code nanoTime} read just after the call
 * gives an upper bound on the deadline, too late by the time between the two reads. A reading
 * is kept only when the call took less than {@link #PRECISION_NANOS}, so a thread descheduled
 * in between (on a busy 2-core machine that is several milliseconds) cannot skew it.
 */
public final class LeaseDeadline {

	/** How far a reading may be above the true deadline: 100 µs. */
	public static final long PRECISION_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

	private LeaseDeadline() {
	}

	/**
	 * Return the lease's current validity deadline, at most {@link #PRECISION_NANOS} late.
	 * @param lease a lease that is still valid
	 * @return the deadline as a {@code nanoTime} value
	 * @throws IllegalStateException if the lease is no longer valid, or no undisturbed reading
	 * was possible in a thousand tries
	 */
	public static long of(LockLease lease) {
		for (int attempt = 0; attempt < 1_000; attempt++) {
			long before = System.nanoTime();
			long remaining = lease.remaining().toNanos();
			long after = System.nanoTime();
			if (remaining <= 0) {
				throw new IllegalStateException("The lease for key '" + lease.key() + "' is no longer valid");
			}
			if (after - before < PRECISION_NANOS) {
				return after + remaining;
			}
		}
		throw new IllegalStateException("No undisturbed reading of the deadline of the lease for key '"
				+ lease.key() + "' in 1,000 tries");
	}

}

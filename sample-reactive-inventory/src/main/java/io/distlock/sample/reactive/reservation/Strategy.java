package io.distlock.sample.reactive.reservation;

/**
 * How a reservation keeps concurrent buyers from overselling.
 */
public enum Strategy {

	/**
	 * {@code @DistributedLock}, the fencing token in the write, and the database guard
	 * ({@code WHERE stock >= ?}): what the sample recommends.
	 */
	GUARDED,

	/**
	 * {@code @DistributedLock} around a read, some work and a plain write: correct while the lock
	 * holds, with nothing to catch a lost lock.
	 */
	LOCK_ONLY,

	/**
	 * The same read, work and write with no lock and no guard: oversells under concurrency (the
	 * negative control).
	 */
	UNGUARDED

}

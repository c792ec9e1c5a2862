package io.distlock.sample.inventory.reservation;

import java.util.List;

/**
 * How a reservation protects the stock.
 */
public enum Strategy {

	/** {@code @DistributedLock} around read-check-write, with the database guard still in place. */
	LOCK("LockedReservation.reserve"),

	/** The database guard alone: {@code UPDATE ... WHERE stock >= :q}. */
	GUARD(null),

	/** Optimistic versions: {@code UPDATE ... WHERE version = :v}, retried a bounded number of times. */
	OPTIMISTIC(null),

	/** The lock plus distlock's fencing ({@code JdbcFencing}): a stale holder's write is refused. */
	FENCED("FencedReservation.reserve"),

	/** No lock, no guard: a plain read-check-write. The negative control; it oversells. */
	UNGUARDED(null),

	/** The lock alone, no guard, no transaction: safe only while the lock is never lost. */
	LOCK_ONLY("LockOnlyReservation.reserve");

	/** The strategies that must never oversell. */
	public static final List<Strategy> SAFE = List.of(LOCK, GUARD, OPTIMISTIC, FENCED);

	private final String lockName;

	Strategy(String lockName) {
		this.lockName = lockName;
	}

	/**
	 * Return the name of the distributed lock the strategy takes, if any.
	 * @return the lock name or {@code null}
	 */
	public String lockName() {
		return this.lockName;
	}

}

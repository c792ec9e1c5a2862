package io.distlock.store;

/**
 * The kinds of lock a store grants.
 */
public enum LockMode {

	/** One holder at a time; waiters compete. */
	EXCLUSIVE,

	/** One holder at a time; waiters are served in arrival order through a queue in the store. */
	FAIR,

	/** Shared with other readers; excluded by a writer. */
	READ,

	/** One writer and no reader; shares its key with {@link #READ}, not with {@link #EXCLUSIVE}. */
	WRITE;

	/**
	 * Return whether a grant of this mode has a single holder per key.
	 * @return {@code false} only for {@link #READ}
	 */
	public boolean isExclusive() {
		return this != READ;
	}

}

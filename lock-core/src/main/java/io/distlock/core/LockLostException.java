package io.distlock.core;

/**
 * A lock was lost while it was held: its renewal was refused or its validity deadline passed
 * before its holder released it. Another holder may have acquired the lock in the meantime, so
 * the data it protected may have been changed concurrently.
 */
public class LockLostException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	private final String key;

	private final long fencingToken;

	/**
	 * Create an exception for a lost grant.
	 * @param key the key of the lost lock
	 * @param fencingToken the fencing token of the lost grant
	 * @param message what happened
	 */
	public LockLostException(String key, long fencingToken, String message) {
		super(message);
		this.key = key;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the key of the lost lock.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Return the fencing token of the lost grant; a resource that already accepted a larger
	 * token has seen a newer holder.
	 * @return the token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}

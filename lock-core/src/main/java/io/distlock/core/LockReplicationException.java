package io.distlock.core;

/**
 * A lock was granted on the Redis primary but not acknowledged by enough replicas in time, so
 * a failover could lose it; the grant was given back and the lock is not acquired.
 */
public class LockReplicationException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception with a message naming the key, the replicas asked for and those that
	 * acknowledged.
	 * @param message what happened
	 */
	public LockReplicationException(String message) {
		super(message);
	}

}

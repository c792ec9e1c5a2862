package io.distlock.core;

/**
 * A lock key is unusable: {@code null}, blank, or otherwise unable to name a lock. Thrown before
 * anything is locked or run.
 */
public class LockKeyException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception with a message that names the key and why it is unusable.
	 * @param message what is wrong with the key
	 */
	public LockKeyException(String message) {
		super(message);
	}

}

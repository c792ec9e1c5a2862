package io.distlock.core;

/**
 * A lock was not acquired: another holder kept it for the whole wait time, the wait was
 * interrupted, or the store could not be reached (then the cause says why). The protected code
 * did not run.
 */
public class LockAcquisitionException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	private final String key;

	/**
	 * Create an exception for a key.
	 * @param key the key that was not acquired
	 * @param message what happened
	 * @param cause the underlying failure, or {@code null}
	 */
	public LockAcquisitionException(String key, String message, Throwable cause) {
		super(message, cause);
		this.key = key;
	}

	/**
	 * Return the key that was not acquired.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

}

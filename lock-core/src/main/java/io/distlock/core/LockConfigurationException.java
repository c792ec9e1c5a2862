package io.distlock.core;

/**
 * A lock is configured in a way that cannot work: a bad annotation attribute, property or
 * registry option. Thrown at startup, naming what to fix.
 */
public class LockConfigurationException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception with a message that names the setting to fix.
	 * @param message what is wrong and where
	 */
	public LockConfigurationException(String message) {
		super(message);
	}

	/**
	 * Create an exception with a message and a cause.
	 * @param message what is wrong and where
	 * @param cause the underlying failure
	 */
	public LockConfigurationException(String message, Throwable cause) {
		super(message, cause);
	}

}

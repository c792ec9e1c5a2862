package io.distlock.core;

/**
 * Root of the unchecked exceptions distlock throws.
 */
public class DistributedLockException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception with a message.
	 * @param message what happened
	 */
	public DistributedLockException(String message) {
		super(message);
	}

	/**
	 * Create an exception with a message and a cause.
	 * @param message what happened
	 * @param cause the underlying failure
	 */
	public DistributedLockException(String message, Throwable cause) {
		super(message, cause);
	}

}

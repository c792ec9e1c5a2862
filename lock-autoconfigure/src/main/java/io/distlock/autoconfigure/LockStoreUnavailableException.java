package io.distlock.autoconfigure;

/**
 * With {@code distlock.fail-fast=true}, the store that holds the locks did not answer at
 * startup. The property is right; what to fix is the store or the connection to it.
 */
class LockStoreUnavailableException extends InvalidLockPropertyException {

	private static final long serialVersionUID = 1L;

	LockStoreUnavailableException(String problem, Throwable cause) {
		super("distlock.fail-fast", true, problem, cause);
	}

}

package io.distlock.redlock;

import io.distlock.core.DistributedLockException;

/**
 * Too few Redlock nodes answered to decide.
 */
class RedlockUnavailableException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	RedlockUnavailableException(String message) {
		super(message);
	}

}

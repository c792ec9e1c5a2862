package io.distlock.engine;

import io.distlock.core.LockRequest;

/**
 * Checks that a lock key is usable before it reaches a store, by the one rule a
 * {@link LockRequest} applies to its key.
 */
final class LockKeys {

	private LockKeys() {
	}

	/**
	 * Return the key if it can name a lock.
	 * @param key the candidate key
	 * @return the same key
	 * @throws io.distlock.core.LockKeyException if the key is {@code null}, blank or holds an unpaired
	 * surrogate (the rules of {@link LockRequest})
	 */
	static String requireUsable(String key) {
		return LockRequest.of(key).key();
	}

}

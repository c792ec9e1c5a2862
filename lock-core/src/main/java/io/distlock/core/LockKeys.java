package io.distlock.core;

/**
 * Checks that a lock key is usable before it reaches a store.
 */
public final class LockKeys {

	private LockKeys() {
	}

	/**
	 * Return the key if it can name a lock.
	 * @param key the candidate key
	 * @return the same key
	 * @throws LockKeyException if the key is {@code null} or blank
	 */
	public static String requireUsable(String key) {
		if (key == null) {
			throw new LockKeyException("Lock key must not be null");
		}
		if (key.isBlank()) {
			throw new LockKeyException("Lock key must not be blank but was '" + key + "'");
		}
		return key;
	}

}

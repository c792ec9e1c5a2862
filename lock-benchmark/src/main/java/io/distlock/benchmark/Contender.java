package io.distlock.benchmark;

/**
 * One lock implementation under test: lock a key, run the critical section, unlock.
 */
interface Contender extends AutoCloseable {

	String name();

	/**
	 * Lock the key, run the section, unlock.
	 */
	void locked(String key, Runnable section) throws Exception;

	@Override
	void close();

}

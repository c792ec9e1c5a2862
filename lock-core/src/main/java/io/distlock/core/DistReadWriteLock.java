package io.distlock.core;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed read/write lock for one key: many readers at once, across processes, or one
 * writer. Both locks are reentrant for the thread that holds them, renewed by the watchdog and
 * signal a loss like any other lock. A waiting writer holds back new readers, so that a stream
 * of readers cannot starve it.
 * <p>
 * It uses its own keys in the store: a plain {@link LockRegistry#obtain(String) lock} on the
 * same key is a different lock.
 */
public interface DistReadWriteLock extends ReadWriteLock {

	/**
	 * Return the key this lock protects.
	 * @return the key
	 */
	String key();

	@Override
	DistLock readLock();

	@Override
	DistLock writeLock();

}

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
 * <p>
 * As with {@code ReentrantReadWriteLock}, a thread that holds the write lock may take the read
 * lock too and then release the write lock: a <em>downgrade</em>. The read lock stays, so other
 * processes' readers may join it and no writer gets in until it is released. The opposite, a
 * thread that holds the read lock asking for the write lock, would wait for its own read lock
 * forever; it is refused at once with {@link IllegalMonitorStateException}.
 * <p>
 * Read and write locks have no fixed lease: the watchdog renews them while they are held, and
 * a holder that dies frees them after the registry's lease time. A fixed lease is a tool for
 * scheduled jobs and hand-timed sections; use {@link LockRequest#leaseTime(java.time.Duration)}
 * with an exclusive lock for those.
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

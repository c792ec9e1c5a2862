package io.distlock.core;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed read/write lock for one key: many readers at once, across processes, or one
 * writer. Both locks are reentrant for the thread that holds them, renewed by the watchdog
 * unless taken with a fixed lease, and signal a loss like any other lock. A waiting writer holds
 * back new readers, so that a stream of readers cannot starve it.
 * <p>
 * It uses its own keys in the store: a plain {@link LockRegistry#obtain(String) lock} on the
 * same key is a different lock.
 * <p>
 * As with {@code ReentrantReadWriteLock}, a thread that holds the write lock may take the read
 * lock too, in this process or with other processes waiting, and then release the write lock: a
 * <em>downgrade</em>. The read lock stays: other processes' readers may join it once the write
 * lock is released, and no writer of any process gets in until it is released too.
 * <p>
 * The opposite, a thread that holds the read lock asking for the write lock (an upgrade), would
 * wait for its own read lock forever; it is refused at once with
 * {@link IllegalMonitorStateException}, by {@code lock()} and by every {@code tryLock} whatever
 * its wait. {@code ReentrantReadWriteLock}'s {@code tryLock} returns {@code false} instead (its
 * {@code lock()} hangs); here no wait could ever succeed, and a {@code false} would read as
 * contention.
 * <p>
 * {@code lock()} and {@code tryLock(Duration)} take a lease that the watchdog renews while the
 * lock is held; a holder that dies frees it after the registry's lease time.
 * {@link DistLock#tryLock(java.time.Duration, java.time.Duration) tryLock(waitTime, leaseTime)}
 * takes either lock with a fixed lease instead, which expires after it held or not and which
 * {@link LockLease#extend(java.time.Duration)} moves.
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

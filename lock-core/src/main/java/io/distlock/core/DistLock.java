package io.distlock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A distributed, reentrant {@link Lock} for one key, in the style of Spring Integration's
 * {@code RedisLockRegistry}.
 * <p>
 * A thread that holds the lock may lock it again without a round trip to the store and must
 * unlock it as many times. {@link #unlock()} by a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException}; unlocking a lock whose lease was lost while held throws
 * {@link LockLostException}, because the data it protected may have been changed concurrently.
 * Conditions are not supported.
 */
public interface DistLock extends Lock {

	/**
	 * Return the key this lock protects.
	 * @return the key
	 */
	String key();

	/**
	 * Acquire the lock if it becomes free within the given time.
	 * @param waitTime the maximum time to wait, zero to try once
	 * @return whether the lock was acquired
	 * @throws InterruptedException if the thread was interrupted while waiting
	 * @throws LockAcquisitionException if the store could not be reached
	 */
	boolean tryLock(Duration waitTime) throws InterruptedException;

	@Override
	default boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLock(Duration.of(time, unit.toChronoUnit()));
	}

	/**
	 * Return whether the current thread holds this lock with a lease that is still valid.
	 * @return {@code true} if held by the current thread and not lost
	 */
	boolean isHeldByCurrentThread();

	/**
	 * Return the lease of the current thread's hold: its fencing token, validity and loss
	 * callbacks.
	 * @return the current hold's lease
	 * @throws IllegalMonitorStateException if the current thread does not hold this lock
	 */
	LockLease lease();

	/**
	 * Not supported: a condition cannot be signalled across processes.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	default Condition newCondition() {
		throw new UnsupportedOperationException("Conditions are not supported by distributed locks");
	}

}

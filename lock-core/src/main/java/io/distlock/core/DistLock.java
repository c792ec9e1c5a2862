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
 * <p>
 * <strong>A lost hold is not re-entered.</strong> While the current thread still holds a lease
 * that was lost (and has not unlocked it yet), the same lock is not available to that thread:
 * the outer critical section is no longer protected, and a nested call that succeeded would hide
 * that. {@code tryLock()} and {@code tryLock(Duration)} return {@code false} at once (no wait
 * could end otherwise: only the thread's own {@code unlock()} frees it), so code written for the
 * {@link Lock} contract takes its "not acquired" branch and owes no {@code unlock()}.
 * {@code lock()} and {@code lockInterruptibly()}, which cannot say "not acquired" and would wait
 * for the thread itself forever, throw {@link LockLostException}, as {@link Lock} allows for a
 * documented erroneous use. The loss itself is told by {@link LockLease#onLost} and by
 * {@code unlock()} of the lost hold, which throws {@code LockLostException}; after it the thread
 * locks afresh. Other threads of the process are not affected: a lost grant leaves the key to
 * them at once.
 * <p>
 * <strong>Views have value semantics.</strong> {@code obtain(key)} returns a new, stateless view
 * each time; two views are {@code equals} (with equal hash codes) when they come from the same
 * registry and name the same key and kind of lock, and either view unlocks what the other
 * locked. A thread's holds belong to the thread, not to the view.
 * <p>
 * <strong>Interrupts.</strong> {@code lock()} ignores interrupts while it waits and keeps the
 * interrupt flag set; {@code lockInterruptibly()} and {@code tryLock(Duration)} throw
 * {@link InterruptedException} when interrupted before they are granted, and leave no key behind.
 * No call to the store is ever cancelled by an interrupt: an interrupted holder's
 * {@code unlock()} releases the key in the store, and the flag is still set afterwards.
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
	 * @return whether the lock was acquired; {@code false} at once if the current thread still
	 * holds this lock through a lease that was lost and not yet unlocked (see the class
	 * description)
	 * @throws InterruptedException if the thread was interrupted before or while waiting; the
	 * acquisition then gives up its place and leaves no key
	 * @throws LockAcquisitionException if the store could not be reached
	 */
	boolean tryLock(Duration waitTime) throws InterruptedException;

	/**
	 * Acquire the lock with a fixed lease if it becomes free within the given time: the grant
	 * expires {@code leaseTime} after it was asked for, held or not, and the watchdog does not
	 * renew it. The holder is told when it runs out while held (the lease turns invalid, its
	 * {@link LockLease#onLost onLost} callbacks run and {@code unlock()} throws
	 * {@link LockLostException}); until then {@code lease().}{@link LockLease#extend(Duration)
	 * extend(Duration)} moves it. For read and write locks as for exclusive ones, in the style of
	 * Redisson's {@code tryLock(waitTime, leaseTime, unit)}; a downgrade takes the read lock with
	 * its own lease.
	 * <p>
	 * If the current thread holds this lock already, the call re-enters that hold, with the lease
	 * the hold has (renewed by the watchdog, or fixed when it was taken): {@code leaseTime}
	 * applies to the outermost acquisition only.
	 * <pre class="code">
	 * DistLock write = registry.obtainReadWrite("catalog").writeLock();
	 * if (write.tryLock(Duration.ZERO, Duration.ofMinutes(5))) {
	 *     try {
	 *         rebuildCatalog();
	 *     }
	 *     finally {
	 *         write.unlock();
	 *     }
	 * }
	 * </pre>
	 * @param waitTime the maximum time to wait, zero to try once
	 * @param leaseTime the fixed lease, at least {@link LockRequest#MIN_LEASE_TIME}
	 * @return whether the lock was acquired
	 * @throws InterruptedException if the thread was interrupted before or while waiting
	 * @throws IllegalArgumentException if {@code leaseTime} is shorter than the minimum or leaves
	 * no validity for this registry
	 * @throws LockAcquisitionException if the store could not be reached
	 * @throws LockLostException if the current thread holds this lock through a lease that was
	 * lost and not yet unlocked (see the class description)
	 */
	boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException;

	/**
	 * Acquire the lock if it is free now (no wait; one round trip to the store at most).
	 * @return whether the lock was acquired; {@code false} if the current thread still holds
	 * this lock through a lease that was lost and not yet unlocked (see the class description)
	 * @throws LockAcquisitionException if the store could not be reached
	 */
	@Override
	boolean tryLock();

	/**
	 * As {@link #tryLock(Duration)}: a time of zero or less tries once, and one too long for a
	 * {@link Duration} (such as {@code Long.MAX_VALUE} days) waits {@link LockRequest#MAX_WAIT_TIME}.
	 */
	@Override
	default boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		Duration waitTime;
		try {
			waitTime = (time <= 0) ? Duration.ZERO : Duration.of(time, unit.toChronoUnit());
		}
		catch (ArithmeticException ex) {
			waitTime = LockRequest.MAX_WAIT_TIME;
		}
		return tryLock(waitTime);
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

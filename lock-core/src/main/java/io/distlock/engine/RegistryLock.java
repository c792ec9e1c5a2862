package io.distlock.engine;

import java.time.Duration;
import java.util.Objects;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;

import io.distlock.store.LockMode;

/**
 * The {@link DistLock} view of one key of a registry: a value (the registry's thread holds, the
 * kind of lock and the key) whose methods ask the {@link ThreadHolds}. It holds no state of its
 * own, so obtaining locks for any number of keys costs nothing that stays. Two views are equal
 * when they name the same key and kind of lock of the same registry: they lock and unlock the
 * same thing.
 *
 * @param holds the thread holds of the registry (compared by identity)
 * @param mode the kind of lock
 * @param key the key to lock
 */
record RegistryLock(ThreadHolds holds, LockMode mode, String key) implements DistLock {

	@Override
	public void lock() {
		try {
			this.holds.lock(this.mode, this.key, HoldRequest.WAIT_FOREVER, null,
					HoldRequest.Waiter.UNINTERRUPTIBLE_THREAD);
		}
		catch (InterruptedException ex) {
			// An uninterruptible wait never throws it; keep the flag if it ever does.
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Uninterruptible lock was interrupted", ex);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		this.holds.lock(this.mode, this.key, HoldRequest.WAIT_FOREVER, null,
				HoldRequest.Waiter.INTERRUPTIBLE_THREAD);
	}

	@Override
	public boolean tryLock() {
		try {
			return this.holds.lock(this.mode, this.key, 0, null, HoldRequest.Waiter.UNINTERRUPTIBLE_THREAD);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(Duration waitTime) throws InterruptedException {
		if (waitTime.isNegative()) {
			waitTime = Duration.ZERO;
		}
		return this.holds.lock(this.mode, this.key, HoldRequest.waitNanos(waitTime), null,
				HoldRequest.Waiter.INTERRUPTIBLE_THREAD);
	}

	@Override
	public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
		if (waitTime.isNegative()) {
			waitTime = Duration.ZERO;
		}
		Objects.requireNonNull(leaseTime, "leaseTime must not be null");
		return this.holds.lock(this.mode, this.key, HoldRequest.waitNanos(waitTime), leaseTime,
				HoldRequest.Waiter.INTERRUPTIBLE_THREAD);
	}

	@Override
	public void unlock() {
		this.holds.unlock(this.mode, this.key);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return this.holds.isHeldByCurrentThread(this.mode, this.key);
	}

	@Override
	public LockLease lease() {
		return this.holds.currentLease(this.mode, this.key);
	}

	@Override
	public String toString() {
		return "DistLock[key='" + this.key + "', mode=" + this.mode + ", heldByCurrentThread=" + isHeldByCurrentThread() + "]";
	}

}

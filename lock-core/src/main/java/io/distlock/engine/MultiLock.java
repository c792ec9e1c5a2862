package io.distlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;

/**
 * Several locks taken all or none, always in one global (sorted) order, so that two multi-locks
 * over overlapping keys can never deadlock each other; released in reverse order.
 */
final class MultiLock implements DistLock {

	private final List<DistLock> locks;

	MultiLock(List<DistLock> locksInGlobalOrder) {
		this.locks = List.copyOf(locksInGlobalOrder);
	}

	/**
	 * Return the multi-lock over some keys: their locks without duplicates, in the order every
	 * multi-lock takes them.
	 * @param obtain the lock of one key
	 */
	static MultiLock of(Function<String, DistLock> obtain, String... keys) {
		if (keys == null || keys.length == 0) {
			throw new IllegalArgumentException("A multi-lock needs at least one key");
		}
		return new MultiLock(new TreeSet<>(List.of(keys)).stream().map(obtain).toList());
	}

	@Override
	public boolean equals(Object other) {
		return this == other || (other instanceof MultiLock that && this.locks.equals(that.locks));
	}

	@Override
	public int hashCode() {
		return this.locks.hashCode();
	}

	@Override
	public String key() {
		return String.join(",", this.locks.stream().map(DistLock::key).toList());
	}

	@Override
	public void lock() {
		while (true) {
			List<DistLock> taken = new ArrayList<>();
			try {
				for (DistLock lock : this.locks) {
					lock.lock();
					taken.add(lock);
				}
			}
			catch (RuntimeException ex) {
				unlockAll(taken, ex);
				throw ex;
			}
			if (stillHeld(taken)) {
				return;
			}
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		while (true) {
			List<DistLock> taken = new ArrayList<>();
			try {
				for (DistLock lock : this.locks) {
					lock.lockInterruptibly();
					taken.add(lock);
				}
			}
			catch (RuntimeException | InterruptedException ex) {
				unlockAll(taken, ex);
				throw ex;
			}
			if (stillHeld(taken)) {
				return;
			}
		}
	}

	@Override
	public boolean tryLock() {
		List<DistLock> taken = new ArrayList<>();
		try {
			for (DistLock lock : this.locks) {
				if (!lock.tryLock()) {
					unlockAll(taken, null);
					return false;
				}
				taken.add(lock);
			}
		}
		catch (RuntimeException ex) {
			unlockAll(taken, ex);
			throw ex;
		}
		return stillHeld(taken);
	}

	@Override
	public boolean tryLock(Duration waitTime) throws InterruptedException {
		return tryLockAll(waitTime, null);
	}

	/**
	 * Take every key with the same fixed lease, each counted from its own grant.
	 */
	@Override
	public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
		Objects.requireNonNull(leaseTime, "leaseTime must not be null");
		return tryLockAll(waitTime, leaseTime);
	}

	private boolean tryLockAll(Duration waitTime, Duration leaseTime) throws InterruptedException {
		long deadline = System.nanoTime() + LockRequest.boundedWait(waitTime).toNanos();
		while (true) {
			List<DistLock> taken = new ArrayList<>();
			try {
				for (DistLock lock : this.locks) {
					Duration remaining = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
					if (!((leaseTime != null) ? lock.tryLock(remaining, leaseTime) : lock.tryLock(remaining))) {
						unlockAll(taken, null);
						return false;
					}
					taken.add(lock);
				}
			}
			catch (RuntimeException | InterruptedException ex) {
				unlockAll(taken, ex);
				throw ex;
			}
			if (stillHeld(taken)) {
				return true;
			}
			if (deadline - System.nanoTime() <= 0) {
				return false;
			}
		}
	}

	/**
	 * Return whether every lock taken is still valid: a key taken first can be lost while the
	 * later ones are waited for (a freeze or restart longer than its lease). Then all are given
	 * back and the caller tries again or gives up, rather than enter with a lost lock.
	 */
	private static boolean stillHeld(List<DistLock> taken) {
		for (DistLock lock : taken) {
			if (!lock.isHeldByCurrentThread()) {
				unlockAll(taken, null);
				return false;
			}
		}
		return true;
	}

	@Override
	public void unlock() {
		LockLostException lost = unlockAll(this.locks, null);
		if (lost != null) {
			throw lost;
		}
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return this.locks.stream().allMatch(DistLock::isHeldByCurrentThread);
	}

	/**
	 * Return the lease of the last key in the global order; use
	 * {@code registry.obtain(key).lease()} for another key's.
	 */
	@Override
	public LockLease lease() {
		return this.locks.get(this.locks.size() - 1).lease();
	}

	/**
	 * Unlock in reverse order, every lock even when one fails.
	 * @return the first loss, or {@code null}; added to {@code failure} when there is one
	 */
	private static LockLostException unlockAll(List<DistLock> locks, Throwable failure) {
		LockLostException lost = null;
		for (int i = locks.size() - 1; i >= 0; i--) {
			try {
				locks.get(i).unlock();
			}
			catch (LockLostException ex) {
				if (lost == null) {
					lost = ex;
				}
				else {
					lost.addSuppressed(ex);
				}
			}
		}
		if (lost != null && failure != null) {
			failure.addSuppressed(lost);
			return null;
		}
		return lost;
	}

	@Override
	public String toString() {
		return "DistLock[keys='" + key() + "', heldByCurrentThread=" + isHeldByCurrentThread() + "]";
	}

}

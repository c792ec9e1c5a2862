package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.distlock.core.LockLease;

import io.distlock.store.LockMode;

/**
 * Which thread owns which grant of a registry: what re-entry, {@code unlock()} and
 * {@code isHeldByCurrentThread()} look up. Kept apart from the local gates on purpose: a grant
 * that is lost leaves its gate at once, so that other threads of this process can take the key
 * again, but it stays bound to its thread until that thread releases it and is told of the loss.
 */
final class ThreadHolds {

	private final ConcurrentMap<Owner, Bound> holds = new ConcurrentHashMap<>();

	/** How many fair grants are bound, so that exclusive acquisitions skip a fair lookup. */
	private final AtomicInteger fairBound = new AtomicInteger();

	/**
	 * Return what the given thread holds under a gate key, if anything.
	 */
	Bound find(String gateKey, Thread thread) {
		return this.holds.get(new Owner(gateKey, thread));
	}

	/**
	 * Bind a fresh grant to the thread that took it.
	 */
	void bind(HeldGrant held) {
		if (held.grant().mode() == LockMode.FAIR) {
			this.fairBound.incrementAndGet();
		}
		this.holds.put(new Owner(held.gateKey(), held.ownerThread()), new Bound(held));
	}

	/**
	 * Unbind a grant whose outermost hold was released; does nothing for a grant no thread owns.
	 */
	void unbind(HeldGrant held) {
		Thread thread = held.ownerThread();
		if (thread == null) {
			return;
		}
		Owner owner = new Owner(held.gateKey(), thread);
		if (held.grant().mode() != LockMode.FAIR) {
			this.holds.computeIfPresent(owner, (key, bound) -> (bound.held() == held) ? null : bound);
			return;
		}
		Bound bound = this.holds.get(owner);
		if (bound != null && bound.held() == held && this.holds.remove(owner, bound)) {
			this.fairBound.decrementAndGet();
		}
	}

	/**
	 * Return whether any thread has a fair grant bound.
	 */
	boolean anyFair() {
		return this.fairBound.get() > 0;
	}

	int size() {
		return this.holds.size();
	}

	/** One thread's claim on one gate key. Threads compare by identity. */
	private record Owner(String gateKey, Thread thread) {
	}

	/**
	 * A grant bound to its thread, with the holds that thread took through {@code DistLock.lock()}
	 * (touched only by that thread).
	 */
	static final class Bound {

		private final HeldGrant held;

		/** Sized for the usual single hold; it grows on re-entry. */
		private final Deque<LockLease> lockHolds = new ArrayDeque<>(1);

		Bound(HeldGrant held) {
			this.held = held;
		}

		HeldGrant held() {
			return this.held;
		}

		Grant grant() {
			return this.held.grant();
		}

		Deque<LockLease> lockHolds() {
			return this.lockHolds;
		}

	}

}

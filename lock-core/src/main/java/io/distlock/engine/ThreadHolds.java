package io.distlock.engine;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import io.distlock.core.DistLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;

import io.distlock.store.LockMode;

/**
 * Thread ownership, in one place: which thread owns which grant of a registry, re-entry, the
 * {@link DistLock} view's methods and the {@link LockContext} of the holds taken through it. A
 * fresh grant is asked of the {@link GrantAcquirer} and bound here before its listener hears of
 * it; a release unbinds it through {@link #unbind}. Apart from the local gates on purpose: a lost
 * grant leaves its gate at once, so that other threads can take the key again, but stays bound
 * to its thread until that thread releases it and is told of the loss.
 */
final class ThreadHolds {

	private final ConcurrentMap<Owner, ThreadBinding> holds = new ConcurrentHashMap<>();

	/** How many fair grants are bound, so that exclusive acquisitions skip a fair lookup. */
	private final AtomicInteger fairBound = new AtomicInteger();

	private final GrantAcquirer acquirer;

	private final Gate.Table gates;

	private final RegistrySettings settings;

	/**
	 * Create the thread holds of a registry and the acquirer they ask for fresh grants.
	 * @param acquirerFor makes the acquirer from {@link #unbind}, which its releases call: so
	 * the engine's types still refer to each other one way
	 */
	ThreadHolds(Gate.Table gates, RegistrySettings settings, Function<Consumer<HeldGrant>, GrantAcquirer> acquirerFor) {
		this.gates = gates;
		this.settings = settings;
		this.acquirer = acquirerFor.apply(this::unbind);
	}

	/** Return the acquirer, which asynchronous and lease-owned holds use directly. */
	GrantAcquirer acquirer() {
		return this.acquirer;
	}

	/**
	 * Take a hold for the calling thread through its {@link DistLock} view, and bind it to the
	 * thread's {@link LockContext}.
	 * @param fixedLease the fixed lease, or {@code null} for the watchdog
	 * @param waiter whether an interrupt ends the wait
	 * @return whether the hold was taken within the wait
	 */
	boolean lock(LockMode mode, String key, long waitNanos, Duration fixedLease, HoldRequest.Waiter waiter)
			throws InterruptedException {
		if (fixedLease != null) {
			this.settings.requireGrantable(fixedLease, "leaseTime");
		}
		if (waiter == HoldRequest.Waiter.INTERRUPTIBLE_THREAD && Thread.interrupted()) {
			// As ReentrantLock: an interruptible acquisition by an interrupted thread does not start.
			throw new InterruptedException();
		}
		ThreadBinding own = ownBinding(mode, key);
		if (own != null && own.held().isLost() && own.held().holds().get() > 0
				&& waitNanos != HoldRequest.WAIT_FOREVER) {
			// tryLock: the thread's own lost hold keeps the lock from it until it unlocks that hold
			// (one another thread released already keeps nothing: that is a new acquisition),
			// so no wait could end otherwise; "not acquired" is the answer the Lock contract has
			// for that. The loss itself is still told by onLost and by unlock() of the lost hold.
			return false;
		}
		HeldLease lease = hold(new HoldRequest(mode, key, LockRequest.DEFAULT_NAME, waitNanos, fixedLease,
				HoldRequest.Holder.THREAD, waiter, null));
		if (lease == null) {
			return false;
		}
		ownBinding(mode, key).lockHolds().addLast(lease);
		LockContext.bind(lease);
		return true;
	}

	/**
	 * Release the innermost hold the calling thread took through its {@link DistLock} view.
	 * @throws IllegalMonitorStateException if the thread holds none
	 */
	void unlock(LockMode mode, String key) {
		ThreadBinding own = ownBinding(mode, key);
		if (own == null) {
			unbindReleasedElsewhere(mode, key);
			throw new IllegalMonitorStateException(
					"Cannot unlock lock for key '" + key + "': it is not held by the current thread");
		}
		HeldLease lease = own.lockHolds().pollLast();
		if (lease == null) {
			throw new IllegalMonitorStateException("Cannot unlock lock for key '" + key
					+ "': the current thread holds it through a LockLease; release that lease instead");
		}
		LockContext.unbind(lease);
		lease.release();
	}

	boolean isHeldByCurrentThread(LockMode mode, String key) {
		ThreadBinding own = ownBinding(mode, key);
		return own != null && own.held().isValid();
	}

	/**
	 * Return the lease of the calling thread's innermost hold, or its grant's first.
	 * @throws IllegalMonitorStateException if the thread holds nothing under the key
	 */
	LockLease currentLease(LockMode mode, String key) {
		ThreadBinding own = ownBinding(mode, key);
		if (own == null) {
			throw new IllegalMonitorStateException("Lock for key '" + key + "' is not held by the current thread");
		}
		HeldLease innermost = own.lockHolds().peekLast();
		return (innermost != null) ? innermost : own.first();
	}

	/**
	 * Take one hold owned by the calling thread, waiting for it on this thread: re-enter the grant
	 * the thread holds under the key, or refuse a request that would wait for the thread's own
	 * hold, or ask the acquirer for a fresh grant and bind it.
	 * @return the hold, or {@code null} if the key stayed taken for the whole wait
	 */
	HeldLease hold(HoldRequest request) throws InterruptedException {
		long startNanos = System.nanoTime();
		this.acquirer.requireOpen();
		Thread current = Thread.currentThread();
		String gateKey = HoldRequest.gateKey(request.mode(), request.key(), current, 0);
		// Every hold keeps a reference to its gate, re-entered ones too, until it is released.
		Gate gate = this.gates.retain(gateKey);
		String writeOwner;
		try {
			ThreadBinding own = find(gateKey, current);
			HeldLease reentered = (own != null) ? reenter(own, gate) : null;
			if (reentered != null) {
				return reentered;
			}
			refuseWaitingForItself(request, current);
			writeOwner = heldWriteOwner(request, current);
		}
		catch (RuntimeException ex) {
			this.gates.release(gate);
			throw ex;
		}
		HeldLease lease = this.acquirer.hold(request, gate, current, writeOwner, startNanos);
		if (lease != null) {
			// Bound before its listener hears of it.
			bind(lease);
			this.acquirer.acquired(lease, startNanos);
		}
		return lease;
	}

	/**
	 * Unbind a grant a thread owns, whose outermost hold was released.
	 */
	void unbind(HeldGrant held) {
		Owner owner = new Owner(held.gateKey(), held.ownerThread());
		if (held.grant().mode() != LockMode.FAIR) {
			this.holds.computeIfPresent(owner, (key, bound) -> (bound.held() == held) ? null : bound);
			return;
		}
		ThreadBinding bound = this.holds.get(owner);
		if (bound != null && bound.held() == held && this.holds.remove(owner, bound)) {
			this.fairBound.decrementAndGet();
		}
	}

	private void bind(HeldLease first) {
		HeldGrant held = first.held();
		if (held.grant().mode() == LockMode.FAIR) {
			this.fairBound.incrementAndGet();
		}
		this.holds.put(new Owner(held.gateKey(), held.ownerThread()), new ThreadBinding(first));
	}

	private ThreadBinding find(String gateKey, Thread thread) {
		return this.holds.get(new Owner(gateKey, thread));
	}

	private ThreadBinding ownBinding(LockMode mode, String key) {
		Thread current = Thread.currentThread();
		return find(HoldRequest.gateKey(mode, key, current, 0), current);
	}

	/**
	 * Re-enter a grant the calling thread owns. A lost one is not re-entered: the outer hold is no
	 * longer protected, and taking a fresh grant underneath it would hide that. Nor is one whose
	 * last hold was released already, by another thread, whose release is still on its way: it
	 * is no longer held, so the caller acquires the key afresh, behind that release.
	 * @return the new hold, or {@code null} if the grant's holds are all released
	 */
	private static HeldLease reenter(ThreadBinding own, Gate gate) {
		HeldGrant held = own.held();
		AtomicInteger holds = held.holds();
		int count;
		do {
			count = holds.get();
			if (count == 0) {
				// Never from zero: the release that took it there hands over or deletes the grant.
				return null;
			}
			if (held.isLost()) {
				throw held.lostException();
			}
		}
		while (!holds.compareAndSet(count, count + 1));
		return own.first().reentered(gate);
	}

	/**
	 * Unbind from the calling thread's {@link LockContext} its holds of this lock that another
	 * thread released (no thread can reach another's context). Left there, they would give later
	 * code a stale token, and {@code LockedTransactionGuard} would roll back the thread's later
	 * transactions as if a lock had been lost.
	 */
	private static void unbindReleasedElsewhere(LockMode mode, String key) {
		Thread current = Thread.currentThread();
		String gateKey = HoldRequest.gateKey(mode, key, current, 0);
		for (LockLease bound : LockContext.all()) {
			if (bound instanceof HeldLease lease && lease.isReleased() && lease.held().ownerThread() == current
					&& lease.held().gateKey().equals(gateKey)) {
				LockContext.unbind(lease);
			}
		}
	}

	/**
	 * Refuse at once an exclusive lock asked for by a thread that holds the fair lock of the same
	 * key, and the other way round: both are one lock in the store, whose local gates and thread
	 * holds are apart, so the request would wait for the thread's own hold until its wait time,
	 * or for ever.
	 */
	private void refuseWaitingForItself(HoldRequest request, Thread current) {
		LockMode held = switch (request.mode()) {
			// Most registries never bind a fair grant: no lookup on the exclusive path then.
			case EXCLUSIVE -> (this.fairBound.get() > 0) ? LockMode.FAIR : null;
			case FAIR -> LockMode.EXCLUSIVE;
			case READ, WRITE -> null;
		};
		if (held == null) {
			return;
		}
		ThreadBinding own = find(HoldRequest.gateKey(held, request.key(), current, 0), current);
		if (own != null && own.held().isActive()) {
			throw new IllegalMonitorStateException("Cannot take the " + request.mode().name().toLowerCase(Locale.ROOT)
					+ " lock for key '" + request.key() + "' while the current thread holds its "
					+ held.name().toLowerCase(Locale.ROOT)
					+ " lock: both are one lock in the store, so it would wait for itself. Use the lock the thread holds");
		}
	}

	/**
	 * Return the owner of the write lock the calling thread holds on the key it asks a read lock
	 * for (a downgrade), or {@code null}; refuse at once a write lock asked for by a thread that
	 * holds the read lock (an upgrade would wait for itself forever).
	 */
	private String heldWriteOwner(HoldRequest request, Thread current) {
		if (request.mode() == LockMode.WRITE
				&& find(HoldRequest.gateKey(LockMode.READ, request.key(), current, 0), current) != null) {
			throw new IllegalMonitorStateException("Cannot take the write lock for key '" + request.key()
					+ "' while the current thread holds its read lock: an upgrade would wait for the thread's own"
					+ " read lock forever. Release the read lock first");
		}
		if (request.mode() != LockMode.READ) {
			return null;
		}
		ThreadBinding write = find(HoldRequest.gateKey(LockMode.WRITE, request.key(), current, 0), current);
		return (write != null && write.held().isActive()) ? write.grant().owner() : null;
	}

	/** One thread's claim on one gate key. Threads compare by identity. */
	private record Owner(String gateKey, Thread thread) {
	}

}

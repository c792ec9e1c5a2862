package io.distlock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.distlock.core.HeldLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;

/**
 * A grant as this process holds it: its state (the machine that makes the loss signal fire
 * exactly once), its validity as renewals move it, the local gate it occupies, the thread that
 * owns it, the lease its listener knows it by, where its holder's continuations run, and whether
 * any listener was told of it. Shared by the reentrant holds of the grant, each of them a
 * {@link HeldLease}; the {@link Grant} itself is the store's answer, a value.
 */
final class HeldGrant {

	enum State {

		/** Held and believed valid. */
		ACTIVE,
		/** The outermost hold is being released; the watchdog leaves it alone. */
		RELEASING,
		/** Released by its holder. */
		RELEASED,
		/** Lost while held: the loss was signalled. */
		LOST

	}

	private final Grant grant;

	private final String gateKey;

	private final Thread ownerThread;

	private final Executor executor;

	private final LockLease lease;

	private final Instant acquiredAt = Instant.now();

	/** How many reentrant holds of the grant are not released yet. */
	private final AtomicInteger holds = new AtomicInteger(1);

	private final AtomicReference<State> state = new AtomicReference<>(State.ACTIVE);

	private final AtomicLong renewals = new AtomicLong();

	private volatile long validUntilNanos;

	private volatile long nextRenewalNanos;

	private volatile String lossReason;

	/** Guarded by itself; never held around I/O or while running a callback. */
	private final List<Consumer<? super LockLostException>> lostCallbacks = new ArrayList<>(1);

	/**
	 * Set when the acquisition this grant answers had been given up: no listener was told it
	 * was acquired, so none is told of its release or loss either.
	 */
	private volatile boolean untold;

	/**
	 * Create the local hold of a grant.
	 * @param grant the grant
	 * @param gateKey the local identity of the gate it occupies (see {@link HoldRequest#gateKey})
	 * @param ownerThread the thread that owns it and may re-enter it, {@code null} for a hold its
	 * lease owns
	 * @param executor where its holder's continuations run, {@code null} for the registry's
	 * default
	 * @param lease its first hold, which its listener is told of
	 */
	HeldGrant(Grant grant, String gateKey, Thread ownerThread, Executor executor, LockLease lease) {
		this.grant = grant;
		this.gateKey = gateKey;
		this.ownerThread = ownerThread;
		this.executor = executor;
		this.lease = lease;
		this.validUntilNanos = grant.validUntilNanos();
		this.nextRenewalNanos = grant.nextRenewalNanos();
	}

	/**
	 * Return the grant as the store gave it.
	 */
	Grant grant() {
		return this.grant;
	}

	/**
	 * Return the grant with the deadlines its renewals have reached: what a handoff passes on.
	 */
	Grant current() {
		return this.grant.withDeadlines(this.validUntilNanos, this.nextRenewalNanos);
	}

	String gateKey() {
		return this.gateKey;
	}

	Thread ownerThread() {
		return this.ownerThread;
	}

	Executor executor() {
		return this.executor;
	}

	/**
	 * Return the lease its listener is told of: its first hold.
	 */
	LockLease lease() {
		return this.lease;
	}

	/**
	 * Return how many holds of the grant are not released yet: one when it is granted, one more
	 * per re-entry, one less per release; never up again from zero.
	 */
	AtomicInteger holds() {
		return this.holds;
	}

	/**
	 * Return whether no listener was told of this grant (see {@link #markUntold()}).
	 */
	boolean isUntold() {
		return this.untold;
	}

	/**
	 * Mark a grant that arrived after its acquisition was given up: listeners were told
	 * {@code onNotAcquired}, so they hear nothing of the grant's release or loss.
	 */
	void markUntold() {
		this.untold = true;
	}

	State state() {
		return this.state.get();
	}

	boolean isActive() {
		return this.state.get() == State.ACTIVE;
	}

	boolean isLost() {
		return this.state.get() == State.LOST;
	}

	boolean isValid() {
		State current = this.state.get();
		return (current == State.ACTIVE || current == State.RELEASING) && remainingNanos() > 0;
	}

	long remainingNanos() {
		return this.validUntilNanos - System.nanoTime();
	}

	long validUntilNanos() {
		return this.validUntilNanos;
	}

	long nextRenewalNanos() {
		return this.nextRenewalNanos;
	}

	void renewed(long validUntilNanos, long nextRenewalNanos) {
		this.renewals.incrementAndGet();
		if (validUntilNanos - this.validUntilNanos > 0) {
			this.validUntilNanos = validUntilNanos;
		}
		this.nextRenewalNanos = nextRenewalNanos;
	}

	/** Set a new validity deadline after the holder extended a fixed lease, shorter or longer. */
	void extended(long validUntilNanos) {
		this.validUntilNanos = validUntilNanos;
	}

	/**
	 * Move from ACTIVE to RELEASING.
	 * @return {@code false} if the grant was already lost
	 */
	boolean beginRelease() {
		return this.state.compareAndSet(State.ACTIVE, State.RELEASING);
	}

	void finishRelease() {
		this.state.compareAndSet(State.RELEASING, State.RELEASED);
	}

	/**
	 * Record the loss if the grant is still in the given state: {@link State#ACTIVE} while held,
	 * {@link State#RELEASING} when the release itself discovers the loss.
	 * @return the callbacks to run if this call recorded the loss, or {@code null} if the grant
	 * was in another state (already released or lost)
	 */
	List<Consumer<? super LockLostException>> markLost(String reason, State from) {
		if (!this.state.compareAndSet(from, State.LOST)) {
			return null;
		}
		this.lossReason = reason;
		synchronized (this.lostCallbacks) {
			List<Consumer<? super LockLostException>> callbacks = new ArrayList<>(this.lostCallbacks);
			this.lostCallbacks.clear();
			return callbacks;
		}
	}

	/**
	 * Register a loss callback.
	 * @return {@code true} if registered, {@code false} if the grant is already lost and the
	 * caller must run the callback itself
	 */
	boolean addLostCallback(Consumer<? super LockLostException> callback) {
		synchronized (this.lostCallbacks) {
			if (this.state.get() == State.LOST) {
				return false;
			}
			this.lostCallbacks.add(callback);
			return true;
		}
	}

	/**
	 * Return a new exception describing the loss of this grant.
	 */
	LockLostException lostException() {
		String key = this.grant.key();
		long token = this.grant.fencingToken();
		return new LockLostException(key, token, "Lock for key '" + key + "' (fencing token " + token
				+ ") was lost while held: " + this.lossReason + ". The data it protected may have been changed concurrently");
	}

	/**
	 * Return what the introspection shows of this grant now.
	 */
	HeldLock heldLock() {
		return new HeldLock(this.grant.name(), this.grant.key(), this.acquiredAt, this.grant.fencingToken(),
				Duration.ofNanos(Math.max(0, remainingNanos())), this.renewals.get(), this.grant.renewable(),
				this.holds.get());
	}

	@Override
	public String toString() {
		return "HeldGrant[" + this.grant + ", state=" + this.state.get() + ", gate='" + this.gateKey + "']";
	}

}

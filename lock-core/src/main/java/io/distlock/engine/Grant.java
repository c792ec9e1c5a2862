package io.distlock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.distlock.core.LockLostException;

import io.distlock.store.LockStore;
import io.distlock.store.LockMode;

/**
 * One grant from the store: the owner written there, the fencing token, the local validity
 * deadline and the state machine that makes the loss signal fire exactly once.
 * <p>
 * All deadlines are {@link System#nanoTime()} values, so a wall-clock step on this host changes
 * nothing.
 */
final class Grant {

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

	private final String key;

	private final LockMode mode;

	private final String name;

	private final String owner;

	private final long fencingToken;

	private final Duration leaseTime;

	private final boolean renewable;

	private final long acquiredNanos;

	private final Instant acquiredAt = Instant.now();

	private final AtomicLong renewals = new AtomicLong();

	/** When the store granted the grant this one descends from by local handoffs. */
	private final long cohortStartNanos;

	/** How many local handoffs lead from the store's grant to this one. */
	private final int handoffs;

	private final AtomicReference<State> state = new AtomicReference<>(State.ACTIVE);

	private volatile long validUntilNanos;

	private volatile long nextRenewalNanos;

	private volatile String lossReason;

	/** Guarded by itself; never held around I/O or while running a callback. */
	private final List<Consumer<? super LockLostException>> lostCallbacks = new ArrayList<>(1);

	/**
	 * Create the grant the store gave to a request.
	 * @param request the request; a request without a fixed lease makes a grant the watchdog
	 * renews
	 * @param owner the owner written in the store
	 * @param fencingToken the token the store minted
	 * @param leaseTime the lease the store set
	 * @param acquiredNanos when the request that got it was sent
	 * @param validUntilNanos the validity deadline
	 * @param nextRenewalNanos when to renew it first
	 */
	Grant(HoldRequest request, String owner, long fencingToken, Duration leaseTime, long acquiredNanos,
			long validUntilNanos, long nextRenewalNanos) {
		this(request.key(), request.mode(), request.name(), owner, fencingToken, leaseTime,
				request.fixedLease() == null, acquiredNanos, validUntilNanos, nextRenewalNanos, acquiredNanos, 0);
	}

	private Grant(String key, LockMode mode, String name, String owner, long fencingToken, Duration leaseTime,
			boolean renewable, long acquiredNanos, long validUntilNanos, long nextRenewalNanos, long cohortStartNanos,
			int handoffs) {
		this.key = key;
		this.mode = mode;
		this.name = name;
		this.owner = owner;
		this.fencingToken = fencingToken;
		this.leaseTime = leaseTime;
		this.renewable = renewable;
		this.acquiredNanos = acquiredNanos;
		this.validUntilNanos = validUntilNanos;
		this.nextRenewalNanos = nextRenewalNanos;
		this.cohortStartNanos = cohortStartNanos;
		this.handoffs = handoffs;
	}

	/**
	 * Return the grant a waiter of this process takes over when this one is handed to it: the
	 * same grant in the store (owner, lease, validity, renewal schedule) with the next fencing
	 * token, so that tokens still grow with every grant.
	 * @param name the logical name of the new holder's request
	 * @param acquiredNanos when the new holder got it
	 * @return the successor grant, active and held once
	 */
	Grant handedOver(String name, long acquiredNanos) {
		return successor(name, this.fencingToken + 1, acquiredNanos, this.validUntilNanos, this.nextRenewalNanos,
				this.cohortStartNanos, this.handoffs + 1);
	}

	/**
	 * Return this grant as the store kept it at the end of a run of local handoffs: a full lease
	 * from {@code sentNanos}, a new token minted by the store, and a new run starting. It is
	 * handed over like any other grant, so its holder gets the token after the minted one.
	 * @param fencingToken the token the store minted
	 * @param sentNanos when the request that kept it was sent
	 * @param validUntilNanos the new validity deadline
	 * @param nextRenewalNanos when to renew it next
	 * @return the kept grant, to be handed over
	 */
	Grant kept(long fencingToken, long sentNanos, long validUntilNanos, long nextRenewalNanos) {
		return successor(this.name, fencingToken, sentNanos, validUntilNanos, nextRenewalNanos, sentNanos, 0);
	}

	/**
	 * Return a successor of this grant: the same key, owner and lease in the store.
	 */
	private Grant successor(String name, long fencingToken, long acquiredNanos, long validUntilNanos,
			long nextRenewalNanos, long cohortStartNanos, int handoffs) {
		return new Grant(this.key, this.mode, name, this.owner, fencingToken, this.leaseTime, this.renewable,
				acquiredNanos, validUntilNanos, nextRenewalNanos, cohortStartNanos, handoffs);
	}

	long cohortStartNanos() {
		return this.cohortStartNanos;
	}

	int handoffs() {
		return this.handoffs;
	}

	String key() {
		return this.key;
	}

	String name() {
		return this.name;
	}

	LockMode mode() {
		return this.mode;
	}

	LockStore.HeldKey heldKey() {
		return new LockStore.HeldKey(this.mode, this.key, this.owner);
	}

	Instant acquiredAt() {
		return this.acquiredAt;
	}

	long renewals() {
		return this.renewals.get();
	}

	String owner() {
		return this.owner;
	}

	long fencingToken() {
		return this.fencingToken;
	}

	Duration leaseTime() {
		return this.leaseTime;
	}

	boolean renewable() {
		return this.renewable;
	}

	long acquiredNanos() {
		return this.acquiredNanos;
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
		return new LockLostException(this.key, this.fencingToken, "Lock for key '" + this.key + "' (fencing token "
				+ this.fencingToken + ") was lost while held: " + this.lossReason
				+ ". The data it protected may have been changed concurrently");
	}

	@Override
	public String toString() {
		return "Grant[key='" + this.key + "', owner='" + this.owner + "', token=" + this.fencingToken + ", state="
				+ this.state.get() + "]";
	}

}

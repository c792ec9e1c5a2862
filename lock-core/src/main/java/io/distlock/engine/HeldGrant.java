package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import io.distlock.core.HeldLock;
import io.distlock.core.LockLease;

/**
 * A grant as this process holds it: the local gate it occupies, the thread that owns it, the
 * lease its listener knows it by, where its holder's continuations run, and whether any listener
 * was told of it. Shared by the reentrant holds of the grant, each of them a {@link HeldLease};
 * the {@link Grant} itself knows none of this.
 */
final class HeldGrant {

	private final Grant grant;

	private final String gateKey;

	private final Thread ownerThread;

	private final Executor executor;

	private final LockLease lease;

	/** How many reentrant holds of the grant are not released yet. */
	private final AtomicInteger holds = new AtomicInteger(1);

	/**
	 * Set when the acquisition this grant answers had been given up: no listener was told it
	 * was acquired, so none is told of its release or loss either.
	 */
	private volatile boolean untold;

	/**
	 * Create the local hold of a grant.
	 * @param grant the grant
	 * @param gateKey the local identity of the gate it occupies (see {@link KeyGates#gateKey})
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
	}

	Grant grant() {
		return this.grant;
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

	/**
	 * Return what the introspection shows of this grant now.
	 */
	HeldLock heldLock() {
		return new HeldLock(this.grant.name(), this.grant.key(), this.grant.acquiredAt(), this.grant.fencingToken(),
				Duration.ofNanos(Math.max(0, this.grant.remainingNanos())), this.grant.renewals(),
				this.grant.renewable(), this.holds.get());
	}

	@Override
	public String toString() {
		return "HeldGrant[" + this.grant + ", gate='" + this.gateKey + "']";
	}

}

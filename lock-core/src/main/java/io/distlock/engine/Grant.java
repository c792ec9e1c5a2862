package io.distlock.engine;

import java.time.Duration;

import io.distlock.store.LockMode;
import io.distlock.store.LockStore;

/**
 * One grant from the store, as a value: the owner written there, the fencing token, the lease,
 * and the deadlines it was granted with. What becomes of it while this process holds it (its
 * renewals, its release, its loss) is its {@link HeldGrant}'s.
 * <p>
 * All deadlines are {@link System#nanoTime()} values, so a wall-clock step on this host changes
 * nothing.
 *
 * @param key the key in the store
 * @param mode the kind of lock
 * @param name the logical name of the request that got it
 * @param owner the owner written in the store
 * @param fencingToken the token the store minted, or the one a handoff derived
 * @param leaseTime the lease the store set
 * @param renewable whether the watchdog renews it (no fixed lease)
 * @param acquiredNanos when the request that got it was sent, or when a handoff gave it
 * @param validUntilNanos the validity deadline it was granted with
 * @param nextRenewalNanos when to renew it first
 * @param cohortStartNanos when the store granted the grant this one descends from by local
 * handoffs
 * @param handoffs how many local handoffs lead from the store's grant to this one
 */
record Grant(String key, LockMode mode, String name, String owner, long fencingToken, Duration leaseTime,
		boolean renewable, long acquiredNanos, long validUntilNanos, long nextRenewalNanos, long cohortStartNanos,
		int handoffs) {

	/**
	 * Return the grant the store gave to a request.
	 * @param request the request; a request without a fixed lease makes a grant the watchdog
	 * renews
	 * @param owner the owner written in the store
	 * @param fencingToken the token the store minted
	 * @param leaseTime the lease the store set
	 * @param acquiredNanos when the request that got it was sent
	 * @param validUntilNanos the validity deadline
	 * @param nextRenewalNanos when to renew it first
	 */
	static Grant of(HoldRequest request, String owner, long fencingToken, Duration leaseTime, long acquiredNanos,
			long validUntilNanos, long nextRenewalNanos) {
		return new Grant(request.key(), request.mode(), request.name(), owner, fencingToken, leaseTime,
				request.fixedLease() == null, acquiredNanos, validUntilNanos, nextRenewalNanos, acquiredNanos, 0);
	}

	/**
	 * Return the grant a waiter of this process takes over when this one is handed to it: the
	 * same grant in the store (owner, lease, validity, renewal schedule) with the next fencing
	 * token, so that tokens still grow with every grant.
	 * @param name the logical name of the new holder's request
	 * @param acquiredNanos when the new holder got it
	 * @return the successor grant
	 */
	Grant handedOver(String name, long acquiredNanos) {
		return new Grant(this.key, this.mode, name, this.owner, this.fencingToken + 1, this.leaseTime, this.renewable,
				acquiredNanos, this.validUntilNanos, this.nextRenewalNanos, this.cohortStartNanos, this.handoffs + 1);
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
		return new Grant(this.key, this.mode, this.name, this.owner, fencingToken, this.leaseTime, this.renewable,
				sentNanos, validUntilNanos, nextRenewalNanos, sentNanos, 0);
	}

	/**
	 * Return this grant with the deadlines it has reached by now, renewed meanwhile.
	 */
	Grant withDeadlines(long validUntilNanos, long nextRenewalNanos) {
		return new Grant(this.key, this.mode, this.name, this.owner, this.fencingToken, this.leaseTime,
				this.renewable, this.acquiredNanos, validUntilNanos, nextRenewalNanos, this.cohortStartNanos,
				this.handoffs);
	}

	LockStore.HeldKey heldKey() {
		return new LockStore.HeldKey(this.mode, this.key, this.owner);
	}

	@Override
	public String toString() {
		return "Grant[key='" + this.key + "', owner='" + this.owner + "', token=" + this.fencingToken + "]";
	}

}

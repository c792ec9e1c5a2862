package io.distlock.engine;

import java.time.Duration;

import io.distlock.core.WaitStrategy;
import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;

/**
 * Lock cohorting for hot keys. When a thread releases a contended exclusive lock while another
 * thread of this process waits for it, the grant passes to that thread without a store round
 * trip: same owner and lease in the store, the next fencing token. Bounded, so that other
 * processes are not starved: after {@code maxLocalHandoffs} handoffs in a row, or
 * {@code maxLocalHandoffTime} after the store's grant, one round trip (a checkpoint) keeps the
 * grant for this process only if no other process waits, and otherwise releases it; then the
 * next local waiter lets the other process go first for a moment.
 * <p>
 * Tokens stay strictly increasing per grant: a handed-over token is the previous one plus one,
 * and the store release records the last of them so that the store's next token is larger.
 * Only grants renewed by the watchdog are handed over (a fixed lease would give the next holder
 * whatever is left of someone else's lease), only while at least half of what a renewal on time
 * leaves is still valid, and only to waiters that ask for a renewed grant.
 * <p>
 * A value: the limits of one registry and the arithmetic on them, no state and no I/O. What
 * becomes of a released grant is decided in one place, {@code GrantReleaser.fate}, which reads
 * them; the store's handoff operations are called by whoever releases or takes over a grant.
 *
 * @param store the store's handoff operations, or {@code null} when it has none or handoff is
 * off
 * @param maxHandoffs how many handoffs in a row
 * @param maxTimeNanos how long after the store's grant a run of handoffs may go on
 * @param minValidityNanos how much validity a grant must have left to be handed over
 * @param maxYieldNanos the longest a waiter lets other processes go first
 * @param polling whether waiters of other processes poll: nobody is woken by a release, so the
 * yield is long
 * @param leaseTime the lease a checkpoint keeps a grant for
 * @param validityNanos the validity of a full lease, less the drift margin
 * @param renewalNanos the renewal interval
 */
record LocalHandoff(LocalHandoffStore store, int maxHandoffs, long maxTimeNanos, long minValidityNanos,
		long maxYieldNanos, boolean polling, Duration leaseTime, long validityNanos, long renewalNanos) {

	private static final long MIN_YIELD_NANOS = Duration.ofMillis(1).toNanos();

	/**
	 * Return the handoff limits of a registry over a store.
	 */
	static LocalHandoff of(LockStore store, RegistrySettings settings) {
		Duration leaseTime = settings.leaseTime();
		long renewalNanos = settings.renewalInterval().toNanos();
		// A grant renewed on time keeps at least the lease less a renewal interval (and the drift
		// margin); less than half of that means its renewals are failing: it is not passed on.
		long minValidityNanos = Math.max(settings.minValidity().toNanos(), (leaseTime.toNanos() - renewalNanos) / 2);
		return new LocalHandoff(
				(settings.maxLocalHandoffs() > 0 && store instanceof LocalHandoffStore handoffStore) ? handoffStore
						: null,
				settings.maxLocalHandoffs(), settings.maxLocalHandoffTime().toNanos(), minValidityNanos,
				Math.max(MIN_YIELD_NANOS, settings.retryInterval().toNanos()),
				settings.waitStrategy() == WaitStrategy.POLLING, leaseTime,
				leaseTime.minus(settings.driftMarginOf(leaseTime)).toNanos(), renewalNanos);
	}

	/**
	 * Return whether a waiter with this request can take a handed-over grant: an exclusive
	 * request whose grant the watchdog renews.
	 */
	GateWaiter.HandedGrant admission(HoldRequest request) {
		return (this.store != null && request.mode() == LockMode.EXCLUSIVE && request.fixedLease() == null)
				? GateWaiter.HandedGrant.ACCEPTED : GateWaiter.HandedGrant.REFUSED;
	}

	/**
	 * Return whether the grant is released through
	 * {@link LocalHandoffStore#releaseExclusive(String, String, long)}, which records handed-over
	 * tokens: every exclusive grant while local handoff is on.
	 */
	boolean manages(Grant grant) {
		return this.store != null && grant.mode() == LockMode.EXCLUSIVE;
	}

	/**
	 * Return whether the grant's run of handoffs may go on: fewer handoffs than the limit, and
	 * less time than the limit since the store's grant.
	 */
	boolean withinLimits(Grant grant, long nowNanos) {
		return grant.handoffs() < this.maxHandoffs && nowNanos - grant.cohortStartNanos() < this.maxTimeNanos;
	}

	/**
	 * Return whether the grant could be handed to a waiter of this process as it is: a managed
	 * grant the watchdog renews, with enough validity left for the next holder.
	 * @param validUntilNanos the grant's validity deadline as its renewals left it
	 */
	boolean canHandOff(Grant grant, long validUntilNanos, long nowNanos) {
		return canCheckpoint(grant) && hasValidityToPassOn(validUntilNanos, nowNanos);
	}

	/**
	 * Return whether the grant could be kept for a waiter of this process by a checkpoint: a
	 * managed grant the watchdog renews.
	 */
	boolean canCheckpoint(Grant grant) {
		return manages(grant) && grant.renewable();
	}

	/**
	 * Return whether enough of a grant's validity is left for a next holder to take it over.
	 */
	boolean hasValidityToPassOn(long validUntilNanos, long nowNanos) {
		return validUntilNanos - nowNanos >= this.minValidityNanos;
	}

	/**
	 * Return the grant a checkpoint kept, to be handed to the waiter of this process with a new
	 * run of handoffs.
	 * @param fencingToken the token the store minted
	 * @param sentNanos when the checkpoint was sent
	 */
	Grant kept(Grant grant, long fencingToken, long sentNanos) {
		return grant.kept(fencingToken, sentNanos, sentNanos + this.validityNanos, sentNanos + this.renewalNanos);
	}

	/**
	 * Return how long the next waiter of this process should let other processes try first
	 * after a store release: when another process waits and this one has had the lock for as
	 * long as the limits allow, long enough for a notified waiter elsewhere to reach the store
	 * (three round trips, at least 1 ms), or, when waiters poll, for its next poll to come (the
	 * retry interval).
	 * @param roundTripNanos how long the release took
	 * @return nanoseconds
	 */
	long yieldNanos(long roundTripNanos) {
		return this.polling ? this.maxYieldNanos
				: Math.min(this.maxYieldNanos, Math.max(MIN_YIELD_NANOS, 3 * roundTripNanos));
	}

	/**
	 * Return the store's handoff operations, for the grants this manages (see {@link #manages}):
	 * a release calls them itself, so that no class stands between it and the store.
	 * @throws IllegalStateException if local handoff is off
	 */
	@Override
	public LocalHandoffStore store() {
		if (this.store == null) {
			throw new IllegalStateException("Local handoff is off: no grant is released through it");
		}
		return this.store;
	}

	/**
	 * Return the token the store must record for a grant: its own if it was handed over, since
	 * the store minted only the first of its run, or 0.
	 */
	static long lastToken(Grant grant) {
		return (grant.handoffs() > 0) ? grant.fencingToken() : 0;
	}

}

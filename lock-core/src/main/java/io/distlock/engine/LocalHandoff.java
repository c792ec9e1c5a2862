package io.distlock.engine;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
 * These are the limits and the arithmetic; what becomes of a released grant is decided in one
 * place, {@code GrantReleaser.fate}, which reads them.
 */
final class LocalHandoff {

	private static final Log logger = LogFactory.getLog(LocalHandoff.class);

	private static final long MIN_YIELD_NANOS = Duration.ofMillis(1).toNanos();

	/** The store's handoff operations, or {@code null} when it has none or handoff is off. */
	private final LocalHandoffStore store;

	private final boolean enabled;

	private final int maxHandoffs;

	private final long maxTimeNanos;

	private final long minValidityNanos;

	private final long maxYieldNanos;

	/** Whether waiters of other processes poll: nobody is woken by a release, so the yield is long. */
	private final boolean polling;

	private final Duration leaseTime;

	private final long validityNanos;

	private final long renewalNanos;

	LocalHandoff(LockStore store, RegistrySettings settings) {
		this.store = (settings.maxLocalHandoffs() > 0 && store instanceof LocalHandoffStore handoffStore)
				? handoffStore : null;
		this.leaseTime = settings.leaseTime();
		this.validityNanos = this.leaseTime.minus(settings.driftMarginOf(this.leaseTime)).toNanos();
		this.renewalNanos = settings.renewalInterval().toNanos();
		this.enabled = this.store != null;
		this.maxHandoffs = settings.maxLocalHandoffs();
		this.maxTimeNanos = settings.maxLocalHandoffTime().toNanos();
		// A grant renewed on time keeps at least the lease less a renewal interval (and the drift
		// margin); less than half of that means its renewals are failing: it is not passed on.
		this.minValidityNanos = Math.max(settings.minValidity().toNanos(),
				(this.leaseTime.toNanos() - this.renewalNanos) / 2);
		this.maxYieldNanos = Math.max(MIN_YIELD_NANOS, settings.retryInterval().toNanos());
		this.polling = settings.waitStrategy() == WaitStrategy.POLLING;
	}

	/**
	 * Return whether a waiter with this request can take a handed-over grant: an exclusive
	 * request whose grant the watchdog renews.
	 */
	Gate.HandedGrant admission(HoldRequest request) {
		return (this.enabled && request.mode() == LockMode.EXCLUSIVE && request.fixedLease() == null)
				? Gate.HandedGrant.ACCEPTED : Gate.HandedGrant.REFUSED;
	}

	/**
	 * Return whether the grant is released through
	 * {@link LocalHandoffStore#releaseExclusive(String, String, long)}, which records handed-over tokens:
	 * every exclusive grant while local handoff is on.
	 */
	boolean manages(Grant grant) {
		return this.enabled && grant.mode() == LockMode.EXCLUSIVE;
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
	 */
	boolean canHandOff(Grant grant, long nowNanos) {
		return canCheckpoint(grant) && grant.validUntilNanos() - nowNanos >= this.minValidityNanos;
	}

	/**
	 * Return whether the grant could be kept for a waiter of this process by a checkpoint: a
	 * managed grant the watchdog renews.
	 */
	boolean canCheckpoint(Grant grant) {
		return manages(grant) && grant.renewable();
	}

	/**
	 * Return the lease a checkpoint keeps a grant for.
	 */
	Duration leaseTime() {
		return this.leaseTime;
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
	 * Take over a grant handed to the calling thread.
	 * @param handed the previous holder's grant
	 * @param name the logical name of the caller's request
	 * @return the caller's grant, or {@code null} if so little of the lease was left by now
	 * that the grant was released in the store instead, and the caller must acquire it there
	 */
	Grant takeOver(Grant handed, String name) {
		long now = System.nanoTime();
		if (handed.validUntilNanos() - now >= this.minValidityNanos) {
			return handed.handedOver(name, now);
		}
		this.store.releaseExclusive(handed.key(), handed.owner(), lastToken(handed))
			.whenComplete((released, failure) -> {
				if (failure != null) {
					// Best effort: the key expires with its lease, which is no longer renewed.
					logger.debug("Could not release a stale handed-over lock for key '" + handed.key() + "'",
							failure);
				}
			});
		return null;
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
	LocalHandoffStore store() {
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

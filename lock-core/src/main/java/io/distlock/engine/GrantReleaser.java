package io.distlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockListener;
import io.distlock.core.LockListener.ReleaseOutcome;

/**
 * Releases holds: the inner holds of a reentrant grant locally, the outermost in the store, and
 * says loudly when the grant turns out to have been lost.
 */
final class GrantReleaser {

	private static final Log logger = LogFactory.getLog(GrantReleaser.class);

	private final LockStore store;

	private final LockListener listener;

	private final KeyGates gates;

	private final Watchdog watchdog;

	private final LossSignal loss;

	GrantReleaser(LockStore store, LockListener listener, KeyGates gates, Watchdog watchdog, LossSignal loss) {
		this.store = store;
		this.listener = listener;
		this.gates = gates;
		this.watchdog = watchdog;
		this.loss = loss;
	}

	void releaseHold(HeldLease lease, Duration holdAtLeast) {
		Grant grant = lease.grant();
		if (grant.holds().decrementAndGet() > 0) {
			this.gates.release(grant.gate());
			if (grant.isLost()) {
				throw grant.lostException();
			}
			return;
		}
		releaseGrant(grant, holdAtLeast);
	}

	private void releaseGrant(Grant grant, Duration holdAtLeast) {
		Gate gate = grant.gate();
		boolean wasActive = grant.beginRelease();
		this.watchdog.unwatch(grant);
		ReleaseOutcome outcome;
		try {
			outcome = releaseInStore(grant, holdAtLeast) ? ReleaseOutcome.RELEASED : ReleaseOutcome.LOST;
		}
		catch (RuntimeException ex) {
			// Degraded path: the work under the lock is done; the key frees itself when its lease
			// expires, since the watchdog no longer renews it. Failing the caller here would
			// report finished work as failed.
			logger.warn("Could not release lock for key '" + grant.key() + "'; it expires within "
					+ grant.leaseTime().toMillis() + "ms", ex);
			outcome = ReleaseOutcome.FAILED;
		}
		if (wasActive && outcome == ReleaseOutcome.LOST) {
			this.loss.declare(grant, "it had already expired or been taken over in the store when it was released",
					true);
		}
		grant.finishRelease();
		if (grant.isLost()) {
			// Also when the watchdog declared the loss first: the holder is told either way.
			outcome = ReleaseOutcome.LOST;
		}
		Duration held = Duration.ofNanos(System.nanoTime() - grant.acquiredNanos());
		gate.leave();
		this.gates.release(gate);
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock for key '" + grant.key() + "' after " + held.toMillis() + "ms: " + outcome);
		}
		this.listener.onReleased(grant.primaryLease(), held, outcome);
		if (grant.isLost()) {
			throw grant.lostException();
		}
	}

	/**
	 * Delete the grant in the store, or, while {@code holdAtLeast} since the grant has not
	 * passed, leave it there to expire then (an owner-compared extension to exactly that).
	 * @return whether the grant was still ours
	 */
	private boolean releaseInStore(Grant grant, Duration holdAtLeast) {
		long keepNanos = grant.acquiredNanos() + holdAtLeast.toNanos() - System.nanoTime();
		if (keepNanos < TimeUnit.MILLISECONDS.toNanos(1)) {
			return this.store.release(grant.mode(), grant.key(), grant.owner());
		}
		return this.store.renew(List.of(grant.heldKey()), Duration.ofNanos(keepNanos))[0];
	}

}

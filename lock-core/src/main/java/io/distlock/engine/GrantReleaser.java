package io.distlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockListener;
import io.distlock.core.LockListener.ReleaseOutcome;

/**
 * Releases holds: the inner holds of a reentrant grant locally, the outermost by handing it to a
 * waiting thread of this process (within the {@link LocalHandoff} limits) or in the store, and
 * says loudly when the grant turns out to have been lost.
 */
final class GrantReleaser {

	private static final Log logger = LogFactory.getLog(GrantReleaser.class);

	/** The shortest remaining {@code holdAtLeast} that keeps a key in the store. */
	private static final long MIN_KEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final LockStore store;

	private final LockListener listener;

	private final KeyGates gates;

	private final Watchdog watchdog;

	private final LossSignal loss;

	private final LocalHandoff handoff;

	private final ThreadHolds threadHolds;

	GrantReleaser(LockStore store, LockListener listener, KeyGates gates, ThreadHolds threadHolds, Watchdog watchdog,
			LossSignal loss, LocalHandoff handoff) {
		this.store = store;
		this.threadHolds = threadHolds;
		this.handoff = handoff;
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
		long now = System.nanoTime();
		boolean mayHandOff = wasActive && keepNanos(grant, holdAtLeast, now) < MIN_KEEP_NANOS;
		if (mayHandOff && this.handoff.handOff(grant, now)) {
			handedOver(grant, now);
			return;
		}
		ReleaseOutcome outcome;
		long yieldNanos = 0;
		try {
			long sentNanos = System.nanoTime();
			// Immune to the caller's interrupt: an interrupted holder's release must still reach
			// the store, or the key stays taken for a whole lease.
			LockStore.Release released = StoreCalls
				.uninterrupted(() -> (mayHandOff && this.handoff.wantsCheckpoint(grant, sentNanos))
						? this.handoff.checkpoint(grant, sentNanos) : releaseInStore(grant, holdAtLeast));
			if (released == LockStore.Release.KEPT) {
				handedOver(grant, now);
				return;
			}
			long repliedNanos = System.nanoTime();
			outcome = (released != LockStore.Release.NOT_HELD) ? ReleaseOutcome.RELEASED : ReleaseOutcome.LOST;
			yieldNanos = this.handoff.yieldNanos(grant, released, repliedNanos - sentNanos, repliedNanos);
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
		// A grant lost while held left its gate when the loss was signalled; the gate may be
		// another holder's by now. Only a release that found the grant active leaves it.
		if (wasActive && yieldNanos > 0) {
			gate.leaveYielding(yieldNanos);
		}
		else if (wasActive) {
			gate.leave();
		}
		this.threadHolds.unbind(grant);
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
	 * Finish the release of a grant a waiting thread of this process took over.
	 */
	private void handedOver(Grant grant, long releasedNanos) {
		grant.finishRelease();
		this.threadHolds.unbind(grant);
		this.gates.release(grant.gate());
		if (logger.isDebugEnabled()) {
			logger.debug("Handed lock for key '" + grant.key() + "' to a waiting thread of this process");
		}
		this.listener.onReleased(grant.primaryLease(), Duration.ofNanos(releasedNanos - grant.acquiredNanos()),
				ReleaseOutcome.RELEASED);
	}

	/**
	 * Delete the grant in the store, or, while {@code holdAtLeast} since the grant has not
	 * passed, leave it there to expire then (an owner-compared extension to exactly that).
	 * @return whether the grant was still ours and whether another holder waits
	 */
	private LockStore.Release releaseInStore(Grant grant, Duration holdAtLeast) {
		long keepNanos = keepNanos(grant, holdAtLeast, System.nanoTime());
		if (keepNanos >= MIN_KEEP_NANOS) {
			return released(this.store.renew(List.of(grant.heldKey()), Duration.ofNanos(keepNanos))[0]);
		}
		if (this.handoff.manages(grant)) {
			return this.handoff.releaseInStore(grant);
		}
		return released(this.store.release(grant.mode(), grant.key(), grant.owner()));
	}

	private static long keepNanos(Grant grant, Duration holdAtLeast, long nowNanos) {
		return grant.acquiredNanos() + holdAtLeast.toNanos() - nowNanos;
	}

	private static LockStore.Release released(boolean released) {
		return released ? LockStore.Release.RELEASED : LockStore.Release.NOT_HELD;
	}

}

package io.distlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockListener;
import io.distlock.core.LockListener.ReleaseOutcome;

import io.distlock.store.LockStore;

/**
 * Releases holds: the inner holds of a reentrant grant locally, the outermost by handing it to a
 * waiting thread of this process (within the {@link LocalHandoff} limits) or in the store, and
 * says loudly when the grant turns out to have been lost.
 */
final class GrantReleaser {

	private static final Log logger = LogFactory.getLog(GrantReleaser.class);

	/** The shortest remaining {@code holdAtLeast} that keeps a key in the store. */
	private static final long MIN_KEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

	private final LockStore store;

	private final LockListener listener;

	private final KeyGates gates;

	private final Watchdog watchdog;

	private final LossSignal loss;

	private final LocalHandoff handoff;

	private final ThreadHolds threadHolds;

	private final CallDeadlines deadlines;

	GrantReleaser(LockStore store, LockListener listener, KeyGates gates, ThreadHolds threadHolds, Watchdog watchdog,
			LossSignal loss, LocalHandoff handoff, CallDeadlines deadlines) {
		this.deadlines = deadlines;
		this.store = store;
		this.threadHolds = threadHolds;
		this.handoff = handoff;
		this.listener = listener;
		this.gates = gates;
		this.watchdog = watchdog;
		this.loss = loss;
	}

	/**
	 * Release one hold. Completes when the release is decided (handed over, or answered by the
	 * store within {@link StoreCalls#RELEASE_TIMEOUT}, or left to expire), exceptionally with
	 * {@link io.distlock.core.LockLostException} when the grant turned out to have been lost.
	 */
	CompletableFuture<Void> releaseHold(HeldLease lease, Duration holdAtLeast) {
		Grant grant = lease.grant();
		if (grant.holds().decrementAndGet() > 0) {
			this.gates.release(grant.gate());
			return grant.isLost() ? CompletableFuture.failedFuture(grant.lostException()) : DONE;
		}
		return releaseGrant(grant, holdAtLeast);
	}

	private CompletableFuture<Void> releaseGrant(Grant grant, Duration holdAtLeast) {
		boolean wasActive = grant.beginRelease();
		this.watchdog.unwatch(grant);
		long now = System.nanoTime();
		boolean mayHandOff = wasActive && keepNanos(grant, holdAtLeast, now) < MIN_KEEP_NANOS;
		if (mayHandOff && this.handoff.handOff(grant, now)) {
			handedOver(grant, now);
			return DONE;
		}
		long sentNanos = System.nanoTime();
		CompletableFuture<LockStore.Release> call;
		try {
			call = (mayHandOff && this.handoff.wantsCheckpoint(grant, sentNanos))
					? this.handoff.checkpoint(grant, sentNanos) : releaseInStore(grant, holdAtLeast);
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		return this.deadlines.within(call, StoreCalls.RELEASE_TIMEOUT)
			.handle((released, failure) -> released(grant, wasActive, now, sentNanos, released, failure));
	}

	/**
	 * Finish a release once the store answered, or did not in time.
	 */
	private Void released(Grant grant, boolean wasActive, long releasedNanos, long sentNanos,
			LockStore.Release released, Throwable failure) {
		if (released == LockStore.Release.KEPT) {
			handedOver(grant, releasedNanos);
			return null;
		}
		ReleaseOutcome outcome;
		long yieldNanos = 0;
		if (failure != null) {
			// Degraded path: the work under the lock is done; the key frees itself when its lease
			// expires, since the watchdog no longer renews it. Failing the caller here would
			// report finished work as failed.
			logger.warn("Could not release lock for key '" + grant.key() + "'; it expires within "
					+ grant.leaseTime().toMillis() + "ms", StoreCalls.unwrap(failure));
			outcome = ReleaseOutcome.FAILED;
		}
		else {
			long repliedNanos = System.nanoTime();
			outcome = (released != LockStore.Release.NOT_HELD) ? ReleaseOutcome.RELEASED : ReleaseOutcome.LOST;
			yieldNanos = this.handoff.yieldNanos(grant, released, repliedNanos - sentNanos, repliedNanos);
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
		Gate gate = grant.gate();
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
			throw new CompletionException(grant.lostException());
		}
		return null;
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
	private CompletableFuture<LockStore.Release> releaseInStore(Grant grant, Duration holdAtLeast) {
		long keepNanos = keepNanos(grant, holdAtLeast, System.nanoTime());
		if (keepNanos >= MIN_KEEP_NANOS) {
			return this.store.renew(List.of(grant.heldKey()), Duration.ofNanos(keepNanos))
				.thenApply((renewed) -> released(renewed[0]));
		}
		if (this.handoff.manages(grant)) {
			return this.handoff.releaseInStore(grant);
		}
		return this.store.release(grant.mode(), grant.key(), grant.owner()).thenApply(GrantReleaser::released);
	}

	private static long keepNanos(Grant grant, Duration holdAtLeast, long nowNanos) {
		return grant.acquiredNanos() + holdAtLeast.toNanos() - nowNanos;
	}

	private static LockStore.Release released(boolean released) {
		return released ? LockStore.Release.RELEASED : LockStore.Release.NOT_HELD;
	}

}

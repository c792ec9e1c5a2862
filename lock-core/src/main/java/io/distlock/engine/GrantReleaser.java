package io.distlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockListener.ReleaseOutcome;

import io.distlock.store.LockStore;

/**
 * Releases holds: the inner holds of a reentrant grant locally, the outermost as its
 * {@link ReleaseFate} says (handed to a waiting thread of this process within the
 * {@link LocalHandoff} limits, kept by a checkpoint, kept until {@code holdAtLeast}, or released
 * in the store), decided once per release in {@link #fate}; and says loudly when the grant turns
 * out to have been lost. A lease calls it directly.
 */
final class GrantReleaser {

	private static final Log logger = LogFactory.getLog(GrantReleaser.class);

	/** The shortest remaining {@code holdAtLeast} that keeps a key in the store. */
	private static final long MIN_KEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

	private final LockStore store;

	private final GuardedLockListener listener;

	private final Gate.Table gates;

	private final Watchdog watchdog;

	private final LossSignal loss;

	private final LocalHandoff handoff;

	/** Forgets which thread owned a grant whose outermost hold was released. */
	private final Consumer<HeldGrant> unbind;

	private final CallDeadlines deadlines;

	private final RegistrySettings settings;

	private final Checkpoints checkpoints;

	GrantReleaser(LockStore store, RegistrySettings settings, GuardedLockListener listener, Gate.Table gates,
			Consumer<HeldGrant> unbind, Watchdog watchdog, LossSignal loss, LocalHandoff handoff, CallDeadlines deadlines) {
		this.settings = settings;
		this.deadlines = deadlines;
		this.checkpoints = new Checkpoints(handoff, deadlines);
		this.store = store;
		this.unbind = unbind;
		this.handoff = handoff;
		this.listener = listener;
		this.gates = gates;
		this.watchdog = watchdog;
		this.loss = loss;
	}

	/** Refuse a {@code holdAtLeast} longer than the longest lease, before the hold counts as released. */
	void requireHoldable(Duration holdAtLeast) {
		this.settings.requireAtMostMaxLease(holdAtLeast, "holdAtLeast");
	}

	/**
	 * Release one hold. Completes when the release is decided (handed over, or answered by the
	 * store within {@link StoreCalls#RELEASE_TIMEOUT}, or left to expire), exceptionally with
	 * {@link io.distlock.core.LockLostException} when the grant turned out to have been lost. The
	 * store call is sent out of reach of the calling thread's interrupt: an interrupted holder's
	 * release must still reach the store (see {@link StoreCalls#shielded}).
	 * @param tail where the release goes on once the store answered (the listener hears of it
	 * there): a blocking release's own waiting thread, never the driver's thread
	 * @param handOffHere whether an asynchronous waiter handed the grant goes on on this thread
	 * once the release returned ({@link HandoffTrampoline}): for an asynchronous release on a user's thread
	 */
	CompletableFuture<Void> release(HeldGrant held, Gate gate, Duration holdAtLeast, Executor tail,
			boolean handOffHere) {
		if (held.holds().decrementAndGet() > 0) {
			this.gates.release(gate);
			return held.isLost() ? CompletableFuture.failedFuture(held.lostException()) : DONE;
		}
		boolean interrupted = Thread.interrupted();
		try {
			return releaseGrant(held, gate, holdAtLeast, tail, handOffHere);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private CompletableFuture<Void> releaseGrant(HeldGrant held, Gate gate, Duration holdAtLeast, Executor tail,
			boolean handOffHere) {
		held.beginRelease();
		Grant grant = held.grant();
		if (!grant.renewable()) {
			// A renewable one leaves the watchdog with its gate; its deadlines stopped moving now.
			this.watchdog.unwatch(held);
		}
		long now = System.nanoTime();
		ReleaseFate fate = fate(held, grant, gate, holdAtLeast, now);
		if (fate == ReleaseFate.HAND_OFF) {
			Successor next = gate.pickForHandOff(held.current());
			if (next.picked()) {
				// Only a release that hands a grant over opens the scope (a null one is not closed).
				try (HandoffTrampoline.Scope scope = handOffHere ? HandoffTrampoline.open() : null) {
					handedOver(held, gate, now, next);
				}
				return DONE;
			}
			// The waiter gave up since the decision: nobody here takes the grant.
			fate = ReleaseFate.RELEASE;
		}
		long sentNanos = System.nanoTime();
		if (fate == ReleaseFate.CHECKPOINT) {
			CheckpointDecision decision = new CheckpointDecision(gate);
			return this.checkpoints.send(grant, decision, sentNanos).handleAsync((released, failure) -> {
				if (decision.taker().picked()) {
					// A waiter here took the kept grant: it is admitted once this release is over.
					return handedOver(held, gate, now, decision.taker());
				}
				return released(held, gate, ReleaseFate.CHECKPOINT, sentNanos, released, failure);
			}, tail);
		}
		ReleaseFate decided = fate;
		return send(grant, fate, holdAtLeast, sentNanos)
			.handleAsync((released, failure) -> released(held, gate, decided, sentNanos, released, failure), tail);
	}

	/** Decide what becomes of a grant whose last hold is released: the one place that does. */
	private ReleaseFate fate(HeldGrant held, Grant grant, Gate gate, Duration holdAtLeast, long nowNanos) {
		if (keepNanos(grant, holdAtLeast, nowNanos) >= MIN_KEEP_NANOS) {
			return ReleaseFate.KEEP;
		}
		if (held.state() != HeldGrant.State.RELEASING) {
			// Lost while held: release whatever the store may still hold of it, owner-compared.
			return ReleaseFate.RELEASE;
		}
		// The gate is asked last: an uncontended release reads two limits and one queue.
		if (this.handoff.withinLimits(grant, nowNanos)) {
			return (this.handoff.canHandOff(grant, held.validUntilNanos(), nowNanos) && gate.hasWaiterAcceptingHandoff())
					? ReleaseFate.HAND_OFF : ReleaseFate.RELEASE;
		}
		return (this.handoff.canCheckpoint(grant) && gate.hasWaiterAcceptingHandoff())
				? ReleaseFate.CHECKPOINT : ReleaseFate.RELEASE_YIELDING;
	}

	/**
	 * Send the store call the fate asks for, other than a checkpoint ({@link Checkpoints}): an
	 * extension for {@link ReleaseFate#KEEP}, a release otherwise; answered within
	 * {@link StoreCalls#RELEASE_TIMEOUT}.
	 */
	private CompletableFuture<LockStore.Release> send(Grant grant, ReleaseFate fate, Duration holdAtLeast,
			long sentNanos) {
		if (fate == ReleaseFate.KEEP) {
			Duration keepTime = Duration.ofNanos(keepNanos(grant, holdAtLeast, sentNanos));
			if (this.handoff.manages(grant) && grant.handoffs() > 0) {
				// Handed over: its token was minted here, so the store must record it although the
				// key stays, or the key's next grant could repeat it.
				return within(() -> this.handoff.store()
					.keepExclusive(grant.key(), grant.owner(), LocalHandoff.lastToken(grant), keepTime)
					.thenApply(GrantReleaser::released));
			}
			return within(() -> this.store.renew(List.of(grant.heldKey()), keepTime)
				.thenApply((renewed) -> released(renewed[0])));
		}
		if (this.handoff.manages(grant)) {
			// Deletes it and records its token if it was handed over.
			return within(() -> this.handoff.store()
				.releaseExclusive(grant.key(), grant.owner(), LocalHandoff.lastToken(grant)));
		}
		return within(() -> this.store.release(grant.mode(), grant.key(), grant.owner())
			.thenApply(GrantReleaser::released));
	}

	/** Send a store call and bound its answer by {@link StoreCalls#RELEASE_TIMEOUT}. */
	private CompletableFuture<LockStore.Release> within(Supplier<CompletableFuture<LockStore.Release>> call) {
		try {
			return this.deadlines.within(call.get(), StoreCalls.RELEASE_TIMEOUT);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Finish a release once the store answered, or did not in time. The gate is left last, once
	 * the listener heard of the release: the next holder of this process, whether it queued or
	 * arrives meanwhile, is told {@code onAcquired} after this {@code onReleased}.
	 */
	private Void released(HeldGrant held, Gate gate, ReleaseFate fate, long sentNanos, LockStore.Release released,
			Throwable failure) {
		Grant grant = held.grant();
		// Only the release itself moves a grant on from RELEASING, and it has not yet.
		boolean wasActive = held.state() == HeldGrant.State.RELEASING;
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
			if (released == LockStore.Release.RELEASED_AWAITED && fate.yieldsToOtherProcesses()) {
				yieldNanos = this.handoff.yieldNanos(repliedNanos - sentNanos);
			}
		}
		try {
			// Inside the try: a loss callback or a listener that throws must not keep the gate,
			// which only this release leaves, from the next waiter.
			if (wasActive && outcome == ReleaseOutcome.LOST) {
				this.loss.declareFoundOnRelease(held,
						"it had already expired or been taken over in the store when it was released");
			}
			held.finishRelease();
			if (held.isLost()) {
				// Also when the watchdog declared the loss first: the holder is told either way.
				outcome = ReleaseOutcome.LOST;
			}
			Duration heldFor = Duration.ofNanos(System.nanoTime() - grant.acquiredNanos());
			if (logger.isDebugEnabled()) {
				logger.debug("Released lock for key '" + grant.key() + "' after " + heldFor.toMillis() + "ms: " + outcome);
			}
			finished(held, heldFor, outcome);
		}
		finally {
			// A grant lost while held left its gate when the loss was signalled; the gate may be
			// another holder's by now. Only a release that found the grant active leaves it. The
			// gate is let go of only then: until it is left, it must stay the one in the map.
			if (wasActive && yieldNanos > 0) {
				gate.leaveYielding(yieldNanos);
			}
			else if (wasActive) {
				gate.leave();
			}
			this.gates.release(gate);
		}
		if (held.isLost()) {
			throw new CompletionException(held.lostException());
		}
		return null;
	}

	/**
	 * Finish the release of a grant a waiter of this process took over, then admit the waiter
	 * (picked, it waits for nobody else): its {@code onAcquired} comes after this
	 * {@code onReleased}. It is admitted also when anything here fails: nothing else would.
	 */
	private Void handedOver(HeldGrant held, Gate gate, long releasedNanos, Successor next) {
		Grant grant = held.grant();
		try {
			held.finishRelease();
			// The picked waiter holds a reference to the gate of its own: it stays in the map.
			this.gates.release(gate);
			if (logger.isDebugEnabled()) {
				logger.debug("Handed lock for key '" + grant.key() + "' to a waiting thread of this process");
			}
			finished(held, Duration.ofNanos(releasedNanos - grant.acquiredNanos()), ReleaseOutcome.RELEASED);
		}
		finally {
			next.admit();
		}
		return null;
	}

	/** Forget the grant's thread, if one owned it; tell the listener, unless it never heard of the grant. */
	private void finished(HeldGrant held, Duration heldFor, ReleaseOutcome outcome) {
		if (held.ownerThread() != null) {
			this.unbind.accept(held);
		}
		if (!held.isUntold()) {
			this.listener.onReleased(held.lease(), heldFor, outcome);
		}
	}

	private static long keepNanos(Grant grant, Duration holdAtLeast, long nowNanos) {
		return grant.acquiredNanos() + holdAtLeast.toNanos() - nowNanos;
	}

	private static LockStore.Release released(boolean released) {
		return released ? LockStore.Release.RELEASED : LockStore.Release.NOT_HELD;
	}

}

package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;

import io.distlock.store.LockStore;

/**
 * What a held lease asks of the store besides its release: confirm that the store still holds
 * its grant, extend a fixed lease, and hear of its loss. A loss found here is declared through
 * the {@link LossSignal}, exactly once as any other.
 */
final class LeaseUpkeep {

	private static final Log logger = LogFactory.getLog(LeaseUpkeep.class);

	private final LockStore store;

	private final Watchdog watchdog;

	private final LossSignal loss;

	private final CallDeadlines deadlines;

	private final Continuations continuations;

	LeaseUpkeep(LockStore store, Watchdog watchdog, LossSignal loss, CallDeadlines deadlines,
			Continuations continuations) {
		this.store = store;
		this.watchdog = watchdog;
		this.loss = loss;
		this.deadlines = deadlines;
		this.continuations = continuations;
	}

	void addLostCallback(HeldGrant held, Consumer<? super LockLostException> callback) {
		this.loss.addCallback(held, callback);
	}

	/**
	 * Confirm on the calling thread, which also finishes the store's answer: a loss it finds is
	 * declared, and its callbacks run, before this returns.
	 */
	boolean confirm(HeldGrant held) {
		// Bounded inside by the validity deadline; the margin here only covers scheduling.
		WaitingCaller caller = new WaitingCaller(this.continuations, null);
		return caller.await(StoreCalls.shielded(() -> confirmAsync(held, caller)),
				StoreCalls.until(held.validUntilNanos()).plus(StoreCalls.RELEASE_TIMEOUT));
	}

	/**
	 * Confirm on the watchdog's I/O thread, because the store said the key may be gone (a
	 * keyspace event, heard on the driver's thread). A failure to answer is only logged: the
	 * watchdog's renewal and deadline still decide.
	 */
	void confirmInBackground(HeldGrant held) {
		this.watchdog.runInBackground(() -> {
			try {
				confirm(held);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not confirm lock for key '" + held.grant().key() + "' after a keyspace event", ex);
			}
		});
	}

	/**
	 * Confirm without waiting.
	 * @param tail where the store's answer is finished (a loss declared, the future completed)
	 */
	CompletableFuture<Boolean> confirmAsync(HeldGrant held, Executor tail) {
		Grant grant = held.grant();
		if (!held.isValid()) {
			return CompletableFuture.completedFuture(false);
		}
		Duration bound = StoreCalls.until(held.validUntilNanos());
		CompletableFuture<Boolean> call;
		try {
			call = this.store.isHeld(grant.heldKey());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		// Bounded by the lease's own validity, as the blocking confirm(): past it the answer no
		// longer matters, and an unanswered confirmation is a failure, never a yes. The registry's
		// coarse deadline tick, not a timer per call: cancelling a timer when the reply comes would
		// take the timer queue's lock on the driver's event loop.
		return this.deadlines.within(call, bound).handleAsync((answer, failure) -> {
			if (failure != null) {
				throw StoreCalls.asRuntime(failure);
			}
			if (Boolean.TRUE.equals(answer)) {
				return true;
			}
			this.loss.declare(held, "the store no longer held it when it was confirmed");
			return false;
		}, tail);
	}

	/**
	 * Extend a fixed lease to the given time from now, waiting for the store at most until the
	 * lease's validity deadline.
	 * @return whether the store still held the grant and now holds it for the new lease
	 */
	boolean extend(HeldGrant held, Duration leaseTime) {
		// Bounded inside by the validity deadline; the margin here only covers scheduling.
		WaitingCaller caller = new WaitingCaller(this.continuations, null);
		return caller.await(StoreCalls.shielded(() -> extendAsync(held, leaseTime, caller)),
				StoreCalls.until(held.validUntilNanos()).plus(StoreCalls.RELEASE_TIMEOUT));
	}

	/**
	 * Extend a fixed lease without waiting: one owner-compared call, bounded by the lease's
	 * validity deadline.
	 * @param tail where the store's answer is finished (the watchdog told, the future completed)
	 * @return completes with whether the store still held the grant, or exceptionally as
	 * {@link LockLease#extend(Duration)} throws
	 */
	CompletableFuture<Boolean> extendAsync(HeldGrant held, Duration leaseTime, Executor tail) {
		Grant grant = held.grant();
		long sentNanos;
		CompletableFuture<Boolean> call;
		try {
			this.watchdog.requireExtendable(held, leaseTime);
			sentNanos = System.nanoTime();
			call = this.store.extend(grant.heldKey(), leaseTime);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<Boolean> extended = new CompletableFuture<>();
		this.deadlines.within(call, StoreCalls.until(held.validUntilNanos())).whenCompleteAsync((kept, failure) -> {
			if (failure != null) {
				extended.completeExceptionally(StoreCalls.unwrap(failure));
				return;
			}
			try {
				if (kept) {
					this.watchdog.extended(held, leaseTime, sentNanos);
				}
				else {
					this.watchdog.extensionRefused(held);
				}
				extended.complete(kept);
			}
			catch (RuntimeException ex) {
				extended.completeExceptionally(ex);
			}
		}, tail);
		return extended;
	}

}

package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;

/**
 * Takes fresh holds: starts a {@link PendingHold} (the gate, a handed-over grant or the store,
 * and the waits between attempts, all as continuations). The blocking API waits for it on the
 * caller's thread; the asynchronous API returns its future. Re-entry and the binding of a hold
 * to its thread are {@link ThreadHolds}'s. The pending hold reaches the registry's parts itself
 * and answers only through its result, never by calling back.
 * <p>
 * It tells the application's listener of each acquisition, from its start to its outcome, and
 * keeps a listener's exceptions away from the lock as {@link GuardedLockListener#failed} says.
 */
final class GrantAcquirer {

	private static final Log logger = LogFactory.getLog(GrantAcquirer.class);

	private final RegistryParts parts;

	/** The application's listener, each call to it guarded here. */
	private final LockListener listener;

	private final AtomicLong sequence = new AtomicLong();

	GrantAcquirer(RegistryParts parts, LockListener listener) {
		this.parts = parts;
		this.listener = listener;
	}

	/**
	 * Fail if the registry was closed.
	 */
	void requireOpen() {
		this.parts.deadlines().requireOpen();
	}

	/**
	 * Take one hold its lease owns, waiting for it on the calling thread.
	 * @return the hold, or {@code null} if the key stayed taken for the whole wait
	 */
	HeldLease hold(HoldRequest request) throws InterruptedException {
		long startNanos = System.nanoTime();
		long holdId = this.sequence.incrementAndGet();
		Gate gate = this.parts.gates().retain(HoldRequest.gateKey(request.mode(), request.key(), null, holdId));
		HeldLease lease = await(new PendingHold(this.parts, request, gate, holdId, startNanos, null, null),
				startNanos);
		if (lease != null) {
			acquired(lease, startNanos);
		}
		return lease;
	}

	/**
	 * Take one fresh hold for the calling thread, waiting for it on this thread: the blocking
	 * API's layer over the pending hold. An interruptible request that is interrupted before the
	 * grant gives up its place; otherwise an interrupt is kept in the thread's flag.
	 * @param gate the gate of the thread's hold, retained by the caller; the hold keeps it
	 * @param writeOwner the owner of the write lock the thread holds, for a downgrade, or
	 * {@code null}
	 * @param startNanos when the caller started, for the listener
	 * @return the hold, of which the caller tells the listener with {@link #acquired} once it
	 * bound it, or {@code null} if the key stayed taken for the whole wait
	 */
	HeldLease hold(HoldRequest request, Gate gate, Thread owner, String writeOwner, long startNanos)
			throws InterruptedException {
		return await(new PendingHold(this.parts, request, gate, this.sequence.incrementAndGet(), startNanos,
				writeOwner, owner), startNanos);
	}

	/**
	 * Tell the listener of a fresh hold taken by {@link #hold(HoldRequest, Gate, Thread, String, long)}.
	 */
	void acquired(HeldLease lease, long startNanos) {
		logAcquired(lease);
		tell("onAcquired", () -> this.listener.onAcquired(lease, elapsed(startNanos)));
	}

	private HeldLease await(PendingHold pending, long startNanos) throws InterruptedException {
		HoldRequest request = pending.request();
		tell("onAcquiring", () -> this.listener.onAcquiring(request.name(), request.key()));
		HeldLease lease;
		try {
			pending.start();
			lease = await(pending, request.waiter());
		}
		catch (RuntimeException | InterruptedException ex) {
			notAcquired(request, startNanos, ex);
			throw ex;
		}
		if (lease == null) {
			notAcquired(request, startNanos, null);
			return null;
		}
		return lease;
	}

	/**
	 * Take one hold owned by its lease, not by a thread: nothing waits for it. The returned future
	 * completes with the lease, or exceptionally with {@link LockAcquisitionException} when the
	 * wait ran out or the store failed. Cancelling it gives up the place in line; a grant that
	 * races the cancellation is released.
	 * @param request a request whose holder is its lease and whose waiter a continuation
	 */
	CompletableFuture<LockLease> holdAsync(HoldRequest request) {
		long startNanos = System.nanoTime();
		long holdId = this.sequence.incrementAndGet();
		Gate gate = this.parts.gates().retain(HoldRequest.gateKey(request.mode(), request.key(), null, holdId));
		PendingHold pending = new PendingHold(this.parts, request, gate, holdId, startNanos, null, null);
		// Told on the asking thread, where an observation in scope is the acquisition's parent.
		LockListener.Acquisition told = asyncAcquiring(request);
		// The caller's dependents (a reactive body, the task of executeLockedAsync) are placed by
		// the future itself; the listener is told where it may be.
		Continuations continuations = this.parts.continuations();
		Continuations.PlacedFuture<LockLease> caller = continuations.newFuture(request.executor());
		caller.whenCompleteHere((lease, failure) -> {
			if (caller.isCancelled()) {
				pending.cancel();
			}
		});
		Executor outcome = continuations.forListener(request.executor());
		pending.result().whenComplete((lease, failure) -> outcome.execute(() -> {
			if (failure != null || lease == null) {
				Throwable cause = (failure != null) ? StoreCalls.unwrap(failure) : null;
				if (told != null) {
					tell("onAsyncAcquiring(...).notAcquired", () -> told.notAcquired(elapsed(startNanos), cause));
				}
				caller.completeExceptionally((cause != null) ? cause : request.notAcquired());
				return;
			}
			logAcquired(lease);
			if (told != null) {
				tell("onAsyncAcquiring(...).acquired", () -> told.acquired(lease, elapsed(startNanos)));
			}
			if (!caller.complete(lease)) {
				// The caller cancelled as the grant arrived.
				lease.releaseUnwanted();
			}
		}));
		pending.start();
		return caller;
	}

	private void notAcquired(HoldRequest request, long startNanos, Throwable failure) {
		tell("onNotAcquired",
				() -> this.listener.onNotAcquired(request.name(), request.key(), elapsed(startNanos), failure));
	}

	/**
	 * Tell the listener an asynchronous acquisition starts.
	 * @return what to tell of its outcome, or {@code null} if the listener threw: then nothing
	 */
	private LockListener.Acquisition asyncAcquiring(HoldRequest request) {
		try {
			return this.listener.onAsyncAcquiring(request.name(), request.key());
		}
		catch (RuntimeException ex) {
			GuardedLockListener.failed(this.listener, "onAsyncAcquiring", ex);
			return null;
		}
	}

	private void tell(String callback, Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			GuardedLockListener.failed(this.listener, callback, ex);
		}
	}

	private static void logAcquired(HeldLease lease) {
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired " + lease.grant().mode() + " lock for key '" + lease.key()
					+ "' with fencing token " + lease.fencingToken());
		}
	}

	/**
	 * Wait for a pending hold on the calling thread.
	 */
	private static HeldLease await(PendingHold pending, HoldRequest.Waiter waiter) throws InterruptedException {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return pending.result().get();
				}
				catch (InterruptedException ex) {
					if (waiter == HoldRequest.Waiter.INTERRUPTIBLE_THREAD && pending.cancel()) {
						interrupted = false;
						throw ex;
					}
					// Granted meanwhile, or not interruptible: keep the interrupt for later.
					interrupted = true;
				}
				catch (ExecutionException ex) {
					throw StoreCalls.asRuntime(ex.getCause());
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static Duration elapsed(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

}

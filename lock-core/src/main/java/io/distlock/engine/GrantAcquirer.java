package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;

import io.distlock.store.LockMode;

/**
 * Takes holds: re-enters a hold the thread already has, and otherwise starts a
 * {@link PendingHold} (the gate, a handed-over grant or the store, and the waits between
 * attempts, all as continuations). The blocking API waits for it on the caller's thread; the
 * asynchronous API returns its future. The pending hold reaches the registry's parts itself
 * and answers only through its result, never by calling back.
 */
final class GrantAcquirer {

	private static final Log logger = LogFactory.getLog(GrantAcquirer.class);

	private final RegistryParts parts;

	private final LockListener listener;

	private final ThreadHolds threadHolds;

	private final AtomicLong sequence = new AtomicLong();

	GrantAcquirer(RegistryParts parts, LockListener listener, ThreadHolds threadHolds) {
		this.parts = parts;
		this.listener = listener;
		this.threadHolds = threadHolds;
	}

	/**
	 * Take one hold for the calling thread's code, waiting for it on this thread: the blocking
	 * API's layer over {@link #holdAsync}. An interruptible request that is interrupted before the
	 * grant gives up its place; otherwise an interrupt is kept in the thread's flag.
	 * @return the hold, or {@code null} if the key stayed taken for the whole wait
	 */
	HeldLease hold(HoldRequest request) throws InterruptedException {
		long startNanos = System.nanoTime();
		Thread current = Thread.currentThread();
		long holdId = this.sequence.incrementAndGet();
		String gateKey = KeyGates.gateKey(request.mode(), request.key(), request.ownedByThread() ? current : null,
				holdId);
		// Every hold keeps a reference to its gate, re-entered ones too, until it is released.
		KeyGates gates = this.parts.gates();
		Gate gate = gates.retain(gateKey, request.key(), request.mode());
		String writeOwner;
		try {
			ThreadHolds.Bound own = request.ownedByThread() ? this.threadHolds.find(gateKey, current) : null;
			HeldLease reentered = (own != null) ? reenter(own.held(), gate) : null;
			if (reentered != null) {
				return reentered;
			}
			if (request.ownedByThread()) {
				refuseWaitingForItself(request, current);
			}
			writeOwner = request.ownedByThread() ? heldWriteOwner(request, current) : null;
		}
		catch (RuntimeException ex) {
			gates.release(gate);
			throw ex;
		}
		this.listener.onAcquiring(request.name(), request.key());
		PendingHold pending = new PendingHold(this.parts, request, gate, holdId, startNanos, writeOwner,
				request.ownedByThread() ? current : null);
		HeldLease lease;
		try {
			pending.start();
			lease = await(pending, request.waiter());
		}
		catch (RuntimeException | InterruptedException ex) {
			this.listener.onNotAcquired(request.name(), request.key(), elapsed(startNanos), ex);
			throw ex;
		}
		if (lease == null) {
			this.listener.onNotAcquired(request.name(), request.key(), elapsed(startNanos), null);
			return null;
		}
		if (request.ownedByThread()) {
			this.threadHolds.bind(lease.held());
		}
		acquired(lease, startNanos);
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
		Gate gate = this.parts.gates().retain(KeyGates.gateKey(request.mode(), request.key(), null, holdId),
				request.key(), request.mode());
		PendingHold pending = new PendingHold(this.parts, request, gate, holdId, startNanos, null, null);
		// Told on the asking thread, where an observation in scope is the acquisition's parent.
		LockListener.Acquisition told = this.listener.onAsyncAcquiring(request.name(), request.key());
		// The caller's dependents (a reactive body, the task of executeLockedAsync) are placed by
		// the future itself; the listener is told where it may be.
		Continuations continuations = this.parts.continuations();
		PlacedFuture<LockLease> caller = continuations.newFuture(request.executor());
		caller.whenCompleteHere((lease, failure) -> {
			if (caller.isCancelled()) {
				pending.cancel();
			}
		});
		Executor outcome = continuations.forListener(request.executor());
		pending.result().whenComplete((lease, failure) -> outcome.execute(() -> {
			if (failure != null || lease == null) {
				Throwable cause = (failure != null) ? StoreCalls.unwrap(failure) : null;
				told.notAcquired(elapsed(startNanos), cause);
				caller.completeExceptionally((cause != null) ? cause : request.notAcquired());
				return;
			}
			logAcquired(lease);
			told.acquired(lease, elapsed(startNanos));
			if (!caller.complete(lease)) {
				// The caller cancelled as the grant arrived.
				lease.releaseUnwanted();
			}
		}));
		pending.start();
		return caller;
	}

	private void acquired(HeldLease lease, long startNanos) {
		logAcquired(lease);
		this.listener.onAcquired(lease, elapsed(startNanos));
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

	/**
	 * Re-enter a grant the calling thread owns. A lost one is not re-entered: the outer hold is no
	 * longer protected, and taking a fresh grant underneath it would hide that. Nor is one whose
	 * last hold was released already, by another thread, whose release is still on its way: it
	 * is no longer held, so the caller acquires the key afresh, behind that release.
	 * @return the new hold, or {@code null} if the grant's holds are all released
	 */
	private HeldLease reenter(HeldGrant held, Gate gate) {
		Grant grant = held.grant();
		AtomicInteger holds = grant.holds();
		int count;
		do {
			count = holds.get();
			if (count == 0) {
				// Never from zero: the release that took it there hands over or deletes the grant.
				return null;
			}
			if (grant.isLost()) {
				throw grant.lostException();
			}
		}
		while (!holds.compareAndSet(count, count + 1));
		return new HeldLease(held, gate, this.parts.releaser(), this.parts.upkeep(), this.parts.continuations());
	}

	/**
	 * Refuse at once an exclusive lock asked for by a thread that holds the fair lock of the same
	 * key, and the other way round: both are one lock in the store, whose local gates and thread
	 * holds are apart, so the request would wait for the thread's own hold until its wait time,
	 * or for ever.
	 */
	private void refuseWaitingForItself(HoldRequest request, Thread current) {
		LockMode held = switch (request.mode()) {
			// Most registries never bind a fair grant: no lookup on the exclusive path then.
			case EXCLUSIVE -> this.threadHolds.anyFair() ? LockMode.FAIR : null;
			case FAIR -> LockMode.EXCLUSIVE;
			case READ, WRITE -> null;
		};
		if (held == null) {
			return;
		}
		ThreadHolds.Bound own = this.threadHolds.find(KeyGates.gateKey(held, request.key(), current, 0), current);
		if (own != null && own.grant().isActive()) {
			throw new IllegalMonitorStateException("Cannot take the " + kind(request.mode()) + " lock for key '"
					+ request.key() + "' while the current thread holds its " + kind(held)
					+ " lock: both are one lock in the store, so it would wait for itself. Use the lock the thread"
					+ " holds");
		}
	}

	private static String kind(LockMode mode) {
		return (mode == LockMode.FAIR) ? "fair" : "exclusive";
	}

	/**
	 * Return the owner of the write lock the calling thread holds on the key it asks a read lock
	 * for (a downgrade), or {@code null}; refuse at once a write lock asked for by a thread that
	 * holds the read lock (an upgrade would wait for itself forever).
	 */
	private String heldWriteOwner(HoldRequest request, Thread current) {
		if (request.mode() == LockMode.WRITE
				&& this.threadHolds.find(KeyGates.gateKey(LockMode.READ, request.key(), current, 0), current) != null) {
			throw new IllegalMonitorStateException("Cannot take the write lock for key '" + request.key()
					+ "' while the current thread holds its read lock: an upgrade would wait for the thread's own"
					+ " read lock forever. Release the read lock first");
		}
		if (request.mode() != LockMode.READ) {
			return null;
		}
		ThreadHolds.Bound write = this.threadHolds.find(KeyGates.gateKey(LockMode.WRITE, request.key(), current, 0),
				current);
		return (write != null && write.grant().isActive()) ? write.grant().owner() : null;
	}

	private static Duration elapsed(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

}

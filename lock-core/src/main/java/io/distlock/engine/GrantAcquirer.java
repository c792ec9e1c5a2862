package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;

import io.distlock.store.LockStore;
import io.distlock.store.LockMode;

/**
 * Takes holds: re-enters a hold the thread already has, and otherwise starts a
 * {@link PendingHold} (the gate, a handed-over grant or the store, and the waits between
 * attempts, all as continuations). The blocking API waits for it on the caller's thread; the
 * asynchronous API returns its future.
 */
final class GrantAcquirer {

	private static final Log logger = LogFactory.getLog(GrantAcquirer.class);

	private final AbstractLockRegistry registry;

	private final LockStore store;

	private final RegistrySettings settings;

	private final LockListener listener;

	private final KeyGates gates;

	private final Watchdog watchdog;

	private final ReleaseNotifications notifications;

	private final LocalHandoff handoff;

	private final ThreadHolds threadHolds;

	private final AtomicLong sequence = new AtomicLong();

	/** Ends waits and runs the continuations that call the store after one. */
	private final ScheduledExecutorService timer;

	private final CallDeadlines deadlines;

	GrantAcquirer(AbstractLockRegistry registry, LockStore store, RegistrySettings settings, LockListener listener,
			KeyGates gates, ThreadHolds threadHolds, Watchdog watchdog, ReleaseNotifications notifications,
			LocalHandoff handoff, ScheduledExecutorService timer, CallDeadlines deadlines) {
		this.timer = timer;
		this.deadlines = deadlines;
		this.handoff = handoff;
		this.threadHolds = threadHolds;
		this.registry = registry;
		this.store = store;
		this.settings = settings;
		this.listener = listener;
		this.gates = gates;
		this.watchdog = watchdog;
		this.notifications = notifications;
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
		Gate gate = this.gates.retain(gateKey, request.key(), request.mode());
		String writeOwner;
		try {
			ThreadHolds.Bound own = request.ownedByThread() ? this.threadHolds.find(gateKey, current) : null;
			if (own != null) {
				return reenter(own.grant());
			}
			writeOwner = request.ownedByThread() ? heldWriteOwner(request, current) : null;
		}
		catch (RuntimeException ex) {
			this.gates.release(gate);
			throw ex;
		}
		this.listener.onAcquiring(request.name(), request.key());
		PendingHold pending = new PendingHold(this, request, gate, holdId, startNanos, writeOwner, false);
		HeldLease lease;
		try {
			// The first attempt is sent from this thread: its interrupt must not cancel it, and
			// an interruptible wait still sees the flag right after.
			StoreCalls.shielded(() -> {
				pending.start();
				return null;
			});
			lease = await(pending, request.interruptible());
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
			this.threadHolds.bind(lease.grant(), current);
		}
		acquired(lease, startNanos);
		return lease;
	}

	/**
	 * Take one hold owned by its lease, not by a thread: nothing waits for it. The returned future
	 * completes with the lease, or exceptionally with {@link LockAcquisitionException} when the
	 * wait ran out or the store failed. Cancelling it gives up the place in line; a grant that
	 * races the cancellation is released.
	 */
	CompletableFuture<LockLease> holdAsync(HoldRequest request) {
		long startNanos = System.nanoTime();
		long holdId = this.sequence.incrementAndGet();
		Gate gate = this.gates.retain(KeyGates.gateKey(request.mode(), request.key(), null, holdId), request.key(),
				request.mode());
		PendingHold pending = new PendingHold(this, request, gate, holdId, startNanos, null, true);
		// Told on the asking thread, where an observation in scope is the acquisition's parent.
		LockListener.Acquisition told = this.listener.onAsyncAcquiring(request.name(), request.key());
		CompletableFuture<LockLease> caller = new CompletableFuture<>();
		caller.whenComplete((lease, failure) -> {
			if (caller.isCancelled()) {
				pending.cancel();
			}
		});
		pending.result().whenComplete((lease, failure) -> {
			if (failure != null || lease == null) {
				Throwable cause = (failure != null) ? StoreCalls.unwrap(failure) : null;
				told.notAcquired(elapsed(startNanos), cause);
				caller.completeExceptionally((cause != null) ? cause : notAcquired(request));
				return;
			}
			logAcquired(lease);
			told.acquired(lease, elapsed(startNanos));
			if (!caller.complete(lease)) {
				// The caller cancelled as the grant arrived.
				releaseUnwanted(lease);
			}
		});
		StoreCalls.shielded(() -> {
			pending.start();
			return null;
		});
		return caller;
	}

	static LockAcquisitionException notAcquired(HoldRequest request) {
		return new LockAcquisitionException(request.key(), "Could not acquire lock for key '" + request.key()
				+ "' within " + TimeUnit.NANOSECONDS.toMillis(request.waitNanos()) + "ms", null);
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
	private static HeldLease await(PendingHold pending, boolean interruptible) throws InterruptedException {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return pending.result().get();
				}
				catch (InterruptedException ex) {
					if (interruptible && pending.cancel()) {
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
	 * longer protected, and taking a fresh grant underneath it would hide that.
	 */
	private HeldLease reenter(Grant grant) {
		if (!grant.isActive()) {
			throw grant.lostException();
		}
		grant.holds().incrementAndGet();
		return new HeldLease(this.registry, grant);
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

	// ---- used by PendingHold

	RegistrySettings settings() {
		return this.settings;
	}

	ReleaseNotifications notifications() {
		return this.notifications;
	}

	/**
	 * Bound a store call by the caller's deadline.
	 */
	<T> CompletableFuture<T> within(CompletableFuture<T> call, Duration bound) {
		return this.deadlines.within(call, bound);
	}

	Duration acquireAllowance() {
		return this.store.acquireAllowance();
	}

	boolean acceptsHandoff(HoldRequest request) {
		return this.handoff.accepts(request);
	}

	void requireOpen() {
		this.registry.requireOpen();
	}

	/**
	 * Run a continuation on the timer; once the registry is closed, on the calling thread, where
	 * it finds the registry closed and ends.
	 */
	void execute(Runnable task) {
		try {
			this.timer.execute(task);
		}
		catch (RejectedExecutionException ex) {
			task.run();
		}
	}

	/**
	 * Run a task after a delay on the timer; once the registry is closed, at once.
	 * @return the scheduled task, or {@code null} if it already ran
	 */
	ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		try {
			return this.timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			task.run();
			return null;
		}
	}

	Grant takeOver(Grant handed, String name) {
		return this.handoff.takeOver(handed, name);
	}

	/**
	 * Send one attempt to the store.
	 */
	CompletableFuture<LockStore.Acquisition> send(HoldRequest request, String owner, Duration leaseTime,
			long remainingNanos, String writeOwner) {
		return (writeOwner != null) ? this.store.tryAcquireReadUnderWrite(request.key(), owner, leaseTime, writeOwner)
				: this.store.tryAcquire(request.mode(), request.key(), owner, leaseTime, waitHint(remainingNanos));
	}

	/**
	 * Give back whatever an attempt may hold, owner-compared, without waiting: after a failed
	 * or late acquisition, or a fair waiter that leaves the queue.
	 */
	void giveBack(LockMode mode, String key, String owner) {
		CompletableFuture<Boolean> call;
		try {
			call = this.store.release(mode, key, owner);
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		this.deadlines.within(call, StoreCalls.RELEASE_TIMEOUT).whenComplete((released, failure) -> {
			if (failure != null) {
				// Best effort; the key expires with its lease anyway.
				logger.debug("Could not give back lock for key '" + key + "' after a failed acquisition", failure);
			}
		});
	}

	/**
	 * Make a grant a hold: the lease, the gate's occupant, the watchdog's charge.
	 */
	HeldLease hold(Grant grant) {
		HeldLease lease = new HeldLease(this.registry, grant);
		grant.primaryLease(lease);
		grant.gate().occupy(grant);
		this.watchdog.watch(grant);
		return lease;
	}

	/**
	 * Release a hold granted to an acquisition that was given up meanwhile.
	 */
	void releaseUnwanted(HeldLease lease) {
		lease.releaseAsync().whenComplete((released, failure) -> {
			if (failure != null) {
				logger.debug("Released lock for key '" + lease.key() + "' granted after its acquisition was given up",
						failure);
			}
		});
	}

	/**
	 * Drop an acquisition's reference to its gate once it ends without a grant.
	 */
	void notAcquired(Gate gate) {
		this.gates.release(gate);
	}

	private Duration waitHint(long remainingNanos) {
		if (remainingNanos <= 0 || !this.notifications.enabled()) {
			return Duration.ZERO;
		}
		// Every attempt refreshes the hint, and the next attempt comes within one retry interval.
		long hint = Math.min(remainingNanos, this.settings.retryInterval().toNanos() * 2);
		return Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(hint)));
	}

	private static Duration elapsed(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

}

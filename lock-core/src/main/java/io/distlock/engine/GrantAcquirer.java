package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockListener;

/**
 * Takes holds: re-enters a hold the thread already has, passes the local gate, takes over the
 * grant the previous local holder handed to it if there is one, and otherwise asks the store
 * until it grants or the wait runs out, waiting between attempts for a release notification,
 * the holder's remaining lease or a jittered retry interval, whichever is first.
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

	GrantAcquirer(AbstractLockRegistry registry, LockStore store, RegistrySettings settings, LockListener listener,
			KeyGates gates, ThreadHolds threadHolds, Watchdog watchdog, ReleaseNotifications notifications,
			LocalHandoff handoff) {
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
	 * Take one hold.
	 * @return the hold, or {@code null} if the key stayed taken for the whole wait
	 */
	HeldLease hold(HoldRequest request) throws InterruptedException {
		long startNanos = System.nanoTime();
		Thread current = Thread.currentThread();
		long holdId = this.sequence.incrementAndGet();
		String gateKey = KeyGates.gateKey(request.mode(), request.key(), request.ownedByThread() ? current : null,
				holdId);
		Gate gate = this.gates.retain(gateKey, request.key(), request.mode());
		HeldLease lease = null;
		try {
			ThreadHolds.Bound own = request.ownedByThread() ? this.threadHolds.find(gateKey, current) : null;
			if (own != null) {
				lease = reenter(own.grant());
				return lease;
			}
			String writeOwner = request.ownedByThread() ? heldWriteOwner(request, current) : null;
			this.listener.onAcquiring(request.name(), request.key());
			boolean entered;
			try {
				entered = enterGate(gate, startNanos, request, this.handoff.accepts(request));
			}
			catch (InterruptedException ex) {
				this.listener.onNotAcquired(request.name(), request.key(), elapsed(startNanos), ex);
				throw ex;
			}
			if (!entered) {
				this.listener.onNotAcquired(request.name(), request.key(), elapsed(startNanos), null);
				return null;
			}
			Grant grant;
			try {
				this.registry.requireOpen();
				grant = takeOver(gate, request);
				if (grant == null) {
					grant = acquireFromStore(gate, request, startNanos, holdId, gate.takeYieldNanos(), writeOwner);
				}
			}
			catch (RuntimeException | InterruptedException ex) {
				gate.leave();
				this.listener.onNotAcquired(request.name(), request.key(), elapsed(startNanos), ex);
				throw ex;
			}
			if (grant == null) {
				gate.leave();
				this.listener.onNotAcquired(request.name(), request.key(), elapsed(startNanos), null);
				return null;
			}
			lease = new HeldLease(this.registry, grant);
			grant.primaryLease(lease);
			gate.occupy(grant);
			// A detached hold has no owner thread: nobody re-enters it, anyone may release it.
			if (request.ownedByThread()) {
				this.threadHolds.bind(grant, current);
			}
			this.watchdog.watch(grant);
			if (logger.isDebugEnabled()) {
				logger.debug("Acquired " + request.mode() + " lock for key '" + request.key() + "' with fencing token "
						+ grant.fencingToken());
			}
			this.listener.onAcquired(lease, elapsed(startNanos));
			return lease;
		}
		finally {
			if (lease == null) {
				this.gates.release(gate);
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

	private static boolean enterGate(Gate gate, long startNanos, HoldRequest request, boolean acceptsHandoff)
			throws InterruptedException {
		if (request.waitNanos() == 0) {
			return gate.tryEnter();
		}
		return gate.enter(request.remainingNanos(startNanos, System.nanoTime()), request.forever(),
				request.interruptible(), acceptsHandoff);
	}

	private Grant takeOver(Gate gate, HoldRequest request) {
		Grant handed = gate.takeHandedOff();
		return (handed != null) ? this.handoff.takeOver(handed, request.name()) : null;
	}

	/**
	 * Ask the store until it grants or the wait runs out.
	 * @param yieldNanos how long to let other processes try first, when the previous local
	 * holder ended a run of local handoffs while another process waited
	 */
	private Grant acquireFromStore(Gate gate, HoldRequest request, long startNanos, long holdId, long yieldNanos,
			String writeOwner) throws InterruptedException {
		Duration leaseTime = (request.fixedLease() != null) ? request.fixedLease() : this.settings.leaseTime();
		long leaseNanos = leaseTime.toNanos();
		long driftNanos = this.settings.driftMarginOf(leaseTime).toNanos();
		long minValidityNanos = Math.max(1, this.settings.minValidity().toNanos());
		boolean interrupted = false;
		boolean waiting = false;
		try {
			long yieldFor = Math.min(yieldNanos, request.remainingNanos(startNanos, System.nanoTime()));
			if (yieldFor > 0) {
				gate.clearReleaseSignals();
				interrupted = pause(gate, yieldFor, request.interruptible());
			}
			for (int attemptNumber = 1;; attemptNumber++) {
				// A fresh owner per attempt: a late give-back of a failed attempt is owner-compared
				// and must never delete a later attempt's grant. Fair waiters keep one owner, the
				// identity of their place in the queue.
				String owner = this.settings.instanceId() + ":" + holdId
						+ ((request.mode() == LockMode.FAIR) ? "" : "." + attemptNumber);
				gate.clearReleaseSignals();
				long sentNanos = System.nanoTime();
				long remainingNanos = request.remainingNanos(startNanos, sentNanos);
				LockStore.Acquisition attempt = attempt(request, owner, leaseTime, remainingNanos, writeOwner);
				long now = System.nanoTime();
				if (attempt.acquired()) {
					long validUntil = sentNanos + leaseNanos - driftNanos;
					if (validUntil - now >= minValidityNanos) {
						return new Grant(request.mode(), request.key(), request.name(), owner, attempt.fencingToken(),
								leaseTime, request.fixedLease() == null, sentNanos, validUntil,
								sentNanos + this.settings.renewalInterval().toNanos(), gate);
					}
					// The reply came so late that too little of the lease is left to rely on:
					// give the key back (owner-compared, so harmless) and carry on.
					logger.warn("Lock for key '" + request.key() + "' was granted with less than "
							+ TimeUnit.NANOSECONDS.toMillis(minValidityNanos) + "ms of its " + leaseTime.toMillis()
							+ "ms lease left; releasing it and treating it as not acquired");
					releaseQuietly(request.mode(), request.key(), owner);
				}
				long remaining = request.remainingNanos(startNanos, now);
				if (remaining <= 0) {
					if (request.mode() == LockMode.FAIR) {
						// Leave the queue at once rather than block it until the place expires.
						releaseQuietly(request.mode(), request.key(), owner);
					}
					return null;
				}
				if (!waiting) {
					this.notifications.startWaiting(gate);
					waiting = true;
				}
				// Starts the subscription in the background if it is not running; once it runs,
				// waiting gates are woken, since a release published before it was missed.
				this.notifications.ensureListening();
				try {
					interrupted |= pause(gate, retryPauseNanos(attempt.holderTtlMillis(), remaining),
							request.interruptible());
				}
				catch (InterruptedException ex) {
					if (request.mode() == LockMode.FAIR) {
						// Give up the place in the queue now rather than block it until it expires.
						releaseQuietly(request.mode(), request.key(), owner);
					}
					throw ex;
				}
			}
		}
		finally {
			if (waiting) {
				this.notifications.stopWaiting(gate);
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Wait for a release notification or the pause.
	 * @return whether an interrupt came that the caller must keep in the thread's flag
	 * @throws InterruptedException if interrupted and the request is interruptible
	 */
	private static boolean pause(Gate gate, long pauseNanos, boolean interruptible) throws InterruptedException {
		try {
			gate.awaitRelease(pauseNanos);
			return false;
		}
		catch (InterruptedException ex) {
			if (interruptible) {
				throw ex;
			}
			return true;
		}
	}

	private LockStore.Acquisition attempt(HoldRequest request, String owner, Duration leaseTime, long remainingNanos,
			String writeOwner) {
		// The wait time bounds the store's answer too: a store that hangs fails the caller when
		// its wait is over, not when the driver gives up.
		LockStore store = request.forever() ? this.store
				: this.store.bounded(Duration.ofNanos(Math.max(0, remainingNanos)).plus(StoreCalls.ATTEMPT_SLACK));
		Duration waitHint = waitHint(remainingNanos);
		try {
			// Immune to the caller's interrupt: a cancelled attempt could be applied without us
			// knowing whether it was.
			return StoreCalls.uninterrupted(() -> (writeOwner != null)
					? store.tryAcquireReadUnderWrite(request.key(), owner, leaseTime, writeOwner)
					: store.tryAcquire(request.mode(), request.key(), owner, leaseTime, waitHint));
		}
		catch (RuntimeException ex) {
			// The attempt may have been applied and only its reply lost: give back whatever we may
			// hold, so the key does not stay taken for a whole lease. In the background, so that
			// an unreachable store costs the caller one command timeout, not two.
			this.watchdog.runInBackground(() -> releaseQuietly(request.mode(), request.key(), owner));
			throw new LockAcquisitionException(request.key(), "Could not acquire lock for key '" + request.key()
					+ "': the lock store failed: " + ex.getMessage(), ex);
		}
	}

	private void releaseQuietly(LockMode mode, String key, String owner) {
		try {
			StoreCalls.uninterrupted(() -> this.store.bounded(StoreCalls.RELEASE_TIMEOUT).release(mode, key, owner));
		}
		catch (RuntimeException ex) {
			// Best effort after a failed or late acquisition; the key expires with its lease anyway.
			logger.debug("Could not give back lock for key '" + key + "' after a failed acquisition", ex);
		}
	}

	private Duration waitHint(long remainingNanos) {
		if (remainingNanos <= 0 || !this.notifications.enabled()) {
			return Duration.ZERO;
		}
		// Every attempt refreshes the hint, and the next attempt comes within one retry interval.
		long hint = Math.min(remainingNanos, this.settings.retryInterval().toNanos() * 2);
		return Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(hint)));
	}

	private long retryPauseNanos(long holderTtlMillis, long remainingNanos) {
		long retryNanos = this.settings.retryInterval().toNanos();
		long pause = retryNanos / 2 + ThreadLocalRandom.current().nextLong(retryNanos / 2 + 1);
		if (holderTtlMillis >= 0) {
			pause = Math.min(pause, TimeUnit.MILLISECONDS.toNanos(holderTtlMillis + 1));
		}
		return Math.min(pause, remainingNanos);
	}

	private static Duration elapsed(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

}

package io.distlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.store.LockStore;

/**
 * Keeps the grants of one registry alive and notices when they are lost.
 * <p>
 * Two threads: the timer checks every grant's validity deadline at the moment it falls due and
 * ticks the renewals; the renewal I/O runs on a second thread, so that a store that hangs never
 * delays a deadline. Renewals are batched ({@link WatchdogRenewals}): each tick renews, in one
 * store call, every renewable grant whose renewal falls due before the next tick, so a grant is
 * renewed at most one tick early and never late.
 * <p>
 * The grants it renews are the occupants of the registry's gates ({@link Gate.Table}), the one
 * record of what this process holds: a renewable grant is never handed to the watchdog nor taken
 * back from it, so a lock held for less than a renewal interval (most of them) never enters
 * this class. Its deadline check is armed by the tick that first finds it due for renewal or
 * within two ticks of its deadline, long before that deadline. A grant with a fixed lease has its
 * check armed when it is granted ({@link #watch}) and cancelled when it is released
 * ({@link #unwatch}); a renewable grant released after its check was armed leaves the check to
 * find it released when it falls due.
 */
final class Watchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Watchdog.class);

	private static final AtomicInteger registryCount = new AtomicInteger();

	private final RegistrySettings settings;

	private final long tickNanos;

	private final WatchdogRenewals renewals;

	private final LossHandler lossHandler;

	private final ScheduledThreadPoolExecutor timer;

	private final ExecutorService renewalIo;

	private final Gate.Table gates;

	/** The armed deadline check of each grant that has one. */
	private final ConcurrentMap<HeldGrant, ScheduledFuture<?>> deadlineChecks = new ConcurrentHashMap<>();

	private final AtomicBoolean renewing = new AtomicBoolean();

	private final ScheduledFuture<?> ticker;

	Watchdog(LockStore store, RegistrySettings settings, Gate.Table gates, GuardedLockListener listener,
			LossHandler lossHandler) {
		this.settings = settings;
		this.gates = gates;
		this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(5), settings.renewalInterval().toNanos() / 4);
		this.renewals = new WatchdogRenewals(store, settings, listener);
		this.lossHandler = lossHandler;
		int id = registryCount.incrementAndGet();
		this.timer = new ScheduledThreadPoolExecutor(1, Continuations.engineThreads("distlock-watchdog-" + id));
		this.timer.setRemoveOnCancelPolicy(true);
		this.renewalIo = Executors.newSingleThreadExecutor(Continuations.engineThreads("distlock-renewal-" + id));
		this.ticker = this.timer.scheduleAtFixedRate(this::tick, this.tickNanos, this.tickNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Check a grant's deadline from now on: a grant with a fixed lease, which no tick renews and
	 * whose lease may be shorter than a tick, or any grant granted while the registry closed.
	 */
	void watch(HeldGrant held) {
		if (!isRunning()) {
			// The registry closed while the grant was on its way, and close() may have told the
			// holders it found before this grant took its gate: nothing renews or checks it now,
			// so its holder is told at once. Read after the grant took its gate, so that either
			// close() finds it there or this finds the timer stopped.
			this.lossHandler.lost(held, "its registry was closed while it was granted");
			return;
		}
		try {
			scheduleDeadlineCheck(held, held.remainingNanos());
		}
		catch (RejectedExecutionException ex) {
			// close() stopped the timer between the check above and the scheduling.
			this.lossHandler.lost(held, "its registry was closed while it was granted");
		}
	}

	/**
	 * Cancel the deadline check of a grant that is being released. A renewal already on its way
	 * may still reach the store; it compares the owner and the grant's state, so it changes
	 * nothing.
	 */
	void unwatch(HeldGrant held) {
		ScheduledFuture<?> check = this.deadlineChecks.remove(held);
		if (check != null) {
			check.cancel(false);
		}
	}

	/**
	 * Check that the holder may extend the grant: a fixed lease, still held, and a new lease
	 * this registry can grant.
	 * @throws io.distlock.core.LockLostException if the grant was already lost
	 * @throws IllegalStateException if it is renewed by the watchdog or was released
	 * @throws IllegalArgumentException if the lease is too short
	 */
	void requireExtendable(HeldGrant held, Duration leaseTime) {
		this.settings.requireGrantable(leaseTime, "leaseTime");
		if (held.isLost()) {
			throw held.lostException();
		}
		Grant grant = held.grant();
		if (grant.renewable()) {
			throw new IllegalStateException("Cannot extend lock for key '" + grant.key()
					+ "': it has no fixed lease and the watchdog renews it while it is held");
		}
		if (!held.isActive()) {
			throw new IllegalStateException("Cannot extend lock for key '" + grant.key() + "': it was released");
		}
	}

	/**
	 * Apply an extension the store accepted, sent at {@code sentNanos}: move the grant's
	 * deadline and its check.
	 * @throws io.distlock.core.LockLostException if the old deadline passed while the extension
	 * was on its way (the loss was signalled then)
	 */
	void extended(HeldGrant held, Duration leaseTime, long sentNanos) {
		if (!held.isActive()) {
			throw held.lostException();
		}
		held.extended(this.settings.validUntilNanos(sentNanos, leaseTime));
		unwatch(held);
		scheduleDeadlineCheck(held, held.remainingNanos());
	}

	/**
	 * Declare lost a grant whose extension the store refused.
	 */
	void extensionRefused(HeldGrant held) {
		this.lossHandler.lost(held, "its extension was refused: the key expired, was deleted or belongs to"
				+ " another holder");
	}

	/**
	 * Run store I/O that nobody waits for on the renewal thread.
	 */
	void runInBackground(Runnable task) {
		try {
			this.renewalIo.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// Closed registry: the best-effort task is dropped; keys expire with their lease.
			logger.debug("Lock registry closed; background store task dropped", ex);
		}
	}

	boolean isRunning() {
		return !this.timer.isShutdown();
	}

	private void scheduleDeadlineCheck(HeldGrant held, long delayNanos) {
		this.deadlineChecks.put(held,
				this.timer.schedule(() -> checkDeadline(held), Math.max(0, delayNanos), TimeUnit.NANOSECONDS));
	}

	private void checkDeadline(HeldGrant held) {
		Grant grant = held.grant();
		if (!held.isActive()) {
			// Released or lost since: a check a release raced with leaves no entry behind.
			this.deadlineChecks.remove(held);
			return;
		}
		long remaining = held.remainingNanos();
		if (remaining > 0) {
			scheduleDeadlineCheck(held, remaining);
			return;
		}
		this.deadlineChecks.remove(held);
		this.lossHandler.lost(held, grant.renewable()
				? "no renewal succeeded before its validity deadline (the store was unreachable or too slow)"
				: "its fixed lease of " + grant.leaseTime().toMillis() + "ms expired before it was released");
	}

	private void tick() {
		long now = System.nanoTime();
		long horizon = now + this.tickNanos;
		List<HeldGrant> due = new ArrayList<>();
		for (HeldGrant held : this.gates.occupants()) {
			if (!held.grant().renewable() || !held.isActive()) {
				continue;
			}
			boolean dueForRenewal = held.nextRenewalNanos() - horizon <= 0;
			if ((dueForRenewal || held.validUntilNanos() - now <= 2 * this.tickNanos)
					&& !this.deadlineChecks.containsKey(held)) {
				// Armed even while a previous batch hangs: the deadline is what tells the holder
				// then.
				scheduleDeadlineCheck(held, held.remainingNanos());
			}
			if (dueForRenewal) {
				due.add(held);
			}
		}
		if (due.isEmpty() || !this.renewing.compareAndSet(false, true)) {
			// Nothing to renew, or the previous batch is still on its way: its grants' deadlines
			// are checked by the timer regardless.
			return;
		}
		try {
			this.renewalIo.execute(() -> renewAll(due));
		}
		catch (RuntimeException ex) {
			this.renewing.set(false);
			throw ex;
		}
	}

	private void renewAll(List<HeldGrant> due) {
		try {
			for (HeldGrant held : this.renewals.renew(due)) {
				this.lossHandler.lost(held,
						"its renewal was refused: the key expired, was deleted or belongs to another holder");
			}
		}
		finally {
			this.renewing.set(false);
		}
	}

	@Override
	public void close() {
		this.ticker.cancel(false);
		this.timer.shutdownNow();
		this.renewalIo.shutdownNow();
		this.deadlineChecks.clear();
	}

	/**
	 * Told when a watched grant is lost.
	 */
	@FunctionalInterface
	interface LossHandler {

		void lost(HeldGrant held, String reason);

	}

}

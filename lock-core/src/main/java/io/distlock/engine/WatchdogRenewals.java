package io.distlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.store.LockStore;
import io.distlock.store.UndecidedRenewalException;

/**
 * Renews, on the {@link Watchdog}'s renewal thread, the grants it found due: in store calls of at
 * most {@value #MAX_BATCH_SIZE} grants, each waiting no longer than the first validity deadline
 * of its batch, and says what each answer means. A renewed grant gets its new deadline and its
 * listener is told; a grant the store did not decide on stays due and is retried on the next
 * tick until its deadline; a grant the store refused is handed back to the watchdog as lost.
 */
final class WatchdogRenewals {

	private static final Log logger = LogFactory.getLog(WatchdogRenewals.class);

	/** Bounds the work of one renewal script so that it never blocks the store for long. */
	static final int MAX_BATCH_SIZE = 500;

	private final LockStore store;

	private final Duration leaseTime;

	private final long leaseNanos;

	private final long driftNanos;

	private final long renewalNanos;

	private final GuardedLockListener listener;

	WatchdogRenewals(LockStore store, RegistrySettings settings, GuardedLockListener listener) {
		this.store = store;
		this.leaseTime = settings.leaseTime();
		this.leaseNanos = settings.leaseTime().toNanos();
		this.driftNanos = settings.driftMarginOf(settings.leaseTime()).toNanos();
		this.renewalNanos = settings.renewalInterval().toNanos();
		this.listener = listener;
	}

	/**
	 * Renew the grants that are due, batch after batch, on the calling thread.
	 * @return the grants still active that the store refused to renew: they are lost
	 */
	List<HeldGrant> renew(List<HeldGrant> due) {
		List<HeldGrant> refused = new ArrayList<>(0);
		for (int from = 0; from < due.size(); from += MAX_BATCH_SIZE) {
			renewBatch(due.subList(from, Math.min(due.size(), from + MAX_BATCH_SIZE)), refused);
		}
		return refused;
	}

	private void renewBatch(List<HeldGrant> batch, List<HeldGrant> refused) {
		List<LockStore.HeldKey> keys = new ArrayList<>(batch.size());
		long earliestDeadline = batch.get(0).validUntilNanos();
		for (HeldGrant held : batch) {
			keys.add(held.grant().heldKey());
			if (held.validUntilNanos() - earliestDeadline < 0) {
				earliestDeadline = held.validUntilNanos();
			}
		}
		long sentNanos = System.nanoTime();
		boolean[] renewed;
		try {
			// Waits no longer than the first deadline of the batch: a hung store must not hold up
			// the renewals of the next ticks.
			Duration bound = StoreCalls.until(earliestDeadline);
			renewed = StoreCalls.await(() -> this.store.renew(keys, this.leaseTime), bound);
		}
		catch (UndecidedRenewalException ex) {
			// Some grants undecided, the others renewed: an undecided grant must not keep the
			// renewed ones of its batch from counting, or they would be lost at their deadline.
			boolean[] decided = ex.renewed();
			List<HeldGrant> undecided = new ArrayList<>();
			for (int i = 0; i < batch.size(); i++) {
				if (decided[i]) {
					renewed(batch.get(i), sentNanos);
				}
				else {
					undecided.add(batch.get(i));
				}
			}
			failed(undecided, ex);
			return;
		}
		catch (RuntimeException ex) {
			failed(batch, ex);
			return;
		}
		for (int i = 0; i < batch.size(); i++) {
			HeldGrant held = batch.get(i);
			if (renewed[i]) {
				renewed(held, sentNanos);
			}
			else if (held.isActive()) {
				refused.add(held);
			}
		}
	}

	private void renewed(HeldGrant held, long sentNanos) {
		held.renewed(sentNanos + this.leaseNanos - this.driftNanos, sentNanos + this.renewalNanos);
		if (held.isActive()) {
			this.listener.onRenewed(held.lease());
		}
	}

	/**
	 * Degraded path: the grants stay due and are retried on the next tick until their validity
	 * deadline, where the watchdog's timer declares them lost.
	 */
	private void failed(List<HeldGrant> grants, RuntimeException ex) {
		logger.warn("Could not renew " + grants.size() + " lock(s); retrying until their validity deadline", ex);
		for (HeldGrant held : grants) {
			this.listener.onRenewalFailed(held.lease(), ex);
		}
	}

}

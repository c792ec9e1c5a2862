package io.distlock.engine;

import java.util.concurrent.ScheduledExecutorService;

import io.distlock.store.LockStore;

/**
 * The parts of one registry that its acquisitions and leases use, built once by the registry.
 * An acquisition reaches each part directly, so that no call turns back into the component
 * that started it: the acquirer starts a {@link PendingHold}, which asks the store, and a lease
 * asks the {@link GrantReleaser} itself.
 *
 * @param upkeep what a lease asks of the store besides its release
 * @param store where grants live
 * @param settings the validated options
 * @param gates the local per-key gates
 * @param handoff the local handoff limits
 * @param notifications the release notifications waiters listen for
 * @param watchdog what renews grants and checks their deadlines
 * @param releaser what releases holds
 * @param timer ends waits and runs the continuations of acquisitions between store attempts;
 * shut down when the registry closes
 * @param deadlines bounds store calls by their callers' deadlines
 * @param continuations where code that is not the engine's continues
 */
record RegistryParts(LeaseUpkeep upkeep, LockStore store, RegistrySettings settings, KeyGates gates,
		LocalHandoff handoff, ReleaseNotifications notifications, Watchdog watchdog, GrantReleaser releaser,
		ScheduledExecutorService timer, CallDeadlines deadlines, Continuations continuations) {

	/**
	 * Fail if the registry was closed: its timer is shut down by then.
	 */
	void requireOpen() {
		if (this.timer.isShutdown()) {
			throw new IllegalStateException("Lock registry is closed");
		}
	}

}

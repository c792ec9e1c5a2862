package io.distlock.engine;

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
 * @param deadlines the wait timer: ends waits, runs the continuations of acquisitions between
 * store attempts, bounds store calls by their callers' deadlines; shut down when the registry
 * closes
 * @param continuations where code that is not the engine's continues
 */
record RegistryParts(LeaseUpkeep upkeep, LockStore store, RegistrySettings settings, Gate.Table gates,
		LocalHandoff handoff, ReleaseNotifications notifications, Watchdog watchdog, GrantReleaser releaser,
		CallDeadlines deadlines, Continuations continuations) {

}

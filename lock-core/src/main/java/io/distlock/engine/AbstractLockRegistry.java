package io.distlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.HeldLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;
import io.distlock.core.LockRequest;
import io.distlock.core.LossStatistics;

import io.distlock.store.LockStore;
import io.distlock.store.LockMode;

/**
 * The lock engine over a {@link LockStore}: what every registry does whatever holds its grants.
 * <p>
 * One thread per key per registry talks to the store; the others queue on a local gate, so
 * reentrancy costs no round trip, and a contended lock passes between threads of this process
 * without one, a bounded number of times in a row ({@link LocalHandoff}). A waiter for a key
 * another process holds retries on a release notification, after the holder's remaining lease
 * or after a jittered retry interval, whichever comes first. A {@link Watchdog} renews grants
 * that have no fixed lease and signals a loss exactly once.
 */
public abstract class AbstractLockRegistry implements LockRegistry, LockRegistryIntrospection, AutoCloseable {

	private final LockStore store;

	private final RegistrySettings settings;

	private final Gate.Table gates = new Gate.Table();

	private final ThreadHolds threadHolds;

	private final Watchdog watchdog;

	private final LossSignal loss;

	private final GrantAcquirer acquirer;

	private final LeaseUpkeep upkeep;

	/** Ends waits and runs the continuations of acquisitions between store attempts. */
	private final ScheduledThreadPoolExecutor waits;

	private final CallDeadlines deadlines;

	private final Continuations continuations;

	private volatile boolean closed;

	/**
	 * Create a registry over a store.
	 * @param store where grants live
	 * @param settings the validated options
	 */
	protected AbstractLockRegistry(LockStore store, RegistrySettings settings) {
		this.store = store;
		this.settings = settings;
		GuardedLockListener listener = new GuardedLockListener(settings.listener());
		this.continuations = new Continuations(store, listener.isNonBlocking());
		this.loss = new LossSignal(listener, this.continuations, this.gates);
		this.watchdog = new Watchdog(store, settings, this.gates, listener, this.loss::declare);
		LocalHandoff handoff = LocalHandoff.of(store, settings);
		this.waits = new ScheduledThreadPoolExecutor(1,
				Continuations.engineThreads("distlock-wait-" + settings.instanceId()));
		this.waits.setRemoveOnCancelPolicy(true);
		this.deadlines = new CallDeadlines(this.waits);
		this.upkeep = new LeaseUpkeep(store, this.watchdog, this.loss, this.deadlines, this.continuations);
		this.threadHolds = new ThreadHolds(this.gates, settings, (unbind) -> new GrantAcquirer(
				new RegistryParts(this.upkeep, store, settings, this.gates, handoff, new ReleaseNotifications(store, settings),
						this.watchdog, new GrantReleaser(store, settings, listener, this.gates, unbind, this.watchdog,
								this.loss, handoff, this.deadlines),
						this.deadlines, this.continuations),
				settings.listener()));
		this.acquirer = this.threadHolds.acquirer();
	}

	/**
	 * Return the options of this registry.
	 * @return the settings
	 */
	public RegistrySettings getSettings() {
		return this.settings;
	}

	@Override
	public DistLock obtain(String key) {
		return new RegistryLock(this.threadHolds, LockMode.EXCLUSIVE, usableKey(key));
	}

	@Override
	public DistLock obtainFair(String key) {
		return new RegistryLock(this.threadHolds, LockMode.FAIR, usableKey(key));
	}

	@Override
	public DistReadWriteLock obtainReadWrite(String key) {
		String usable = usableKey(key);
		return new RegistryReadWriteLock(usable, new RegistryLock(this.threadHolds, LockMode.READ, usable),
				new RegistryLock(this.threadHolds, LockMode.WRITE, usable));
	}

	@Override
	public DistLock obtainMulti(String... keys) {
		return MultiLock.of(this::obtain, keys);
	}

	@Override
	public LockLease acquire(LockRequest request) {
		HoldRequest hold = holdRequest(request, HoldRequest.Waiter.INTERRUPTIBLE_THREAD);
		HeldLease lease = holdFor(hold);
		if (lease == null) {
			throw hold.notAcquired();
		}
		return lease;
	}

	@Override
	public Optional<LockLease> tryAcquire(LockRequest request) {
		return Optional.ofNullable(holdFor(holdRequest(request, HoldRequest.Waiter.INTERRUPTIBLE_THREAD)));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The wait is a chain of continuations: on the local gate, between store attempts on this
	 * registry's one timer thread, and for the store's answer on the driver's event loop. No
	 * thread is parked per waiter. The stage is completed where {@link Continuations} places it,
	 * never on those threads.
	 */
	@Override
	public CompletionStage<LockLease> acquireAsync(LockRequest request) {
		HoldRequest hold;
		try {
			hold = holdRequest(request, HoldRequest.Waiter.CONTINUATION);
			requireOpen();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return this.acquirer.holdAsync(hold);
	}

	/**
	 * Return how many holds and waits currently have local state. Zero when nothing is held or
	 * awaited: the registry keeps nothing per key beyond that.
	 * @return the number of local gates
	 */
	public int localKeyCount() {
		return this.gates.size();
	}

	/**
	 * Return the key this registry locks for a key a caller gives (see {@link KeyLimit}).
	 * @param key the key as the caller gives it
	 * @return the key as locked
	 */
	@Override
	public String lockKey(String key) {
		return this.settings.keyLimit().apply(LockKeys.requireUsable(key));
	}

	/**
	 * Return the longest lease this registry grants ({@code maxLeaseTime} of its builder).
	 * @return the longest lease
	 */
	@Override
	public Optional<Duration> maxLeaseTime() {
		return Optional.of(this.settings.maxLeaseTime());
	}

	/**
	 * Return the leases this registry holds now, one per grant.
	 * @return a snapshot of the held leases
	 */
	public List<LockLease> heldLeases() {
		return this.gates.occupants().stream().map(HeldGrant::lease).toList();
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.gates.occupants().stream().map(HeldGrant::heldLock).toList();
	}

	@Override
	public LossStatistics getLossStatistics() {
		return this.loss.statistics();
	}

	/**
	 * Return whether the watchdog still runs: it stops only when the registry is closed.
	 * @return whether held locks are renewed and their deadlines checked
	 */
	public boolean isWatchdogRunning() {
		return !this.closed && this.watchdog.isRunning();
	}

	@Override
	public void checkStore() {
		checkStore(StoreCalls.CHECK_TIMEOUT);
	}

	/**
	 * Check that the registry is open, its watchdog runs, and the lock store answers in time.
	 * @throws IllegalStateException if the registry is closed or its watchdog stopped
	 * @throws RuntimeException the store's exception if it does not answer in time
	 */
	@Override
	public void checkStore(Duration timeout) {
		if (!isWatchdogRunning()) {
			throw new IllegalStateException(
					"Lock registry is closed or its watchdog stopped: held locks are not renewed");
		}
		StoreCalls.await(this.store::ping, timeout);
	}

	/**
	 * Stop the watchdog and the store. Locks still held are declared lost (their holders are
	 * told) and expire in the store when their lease runs out.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		// First: a hold taken through a DistLock asks the acquirer, which finds the registry
		// closed by this timer, not by the flag above.
		this.waits.shutdown();
		this.watchdog.close();
		for (HeldGrant occupant : this.gates.close()) {
			this.loss.declare(occupant, "its registry was closed while it was held");
		}
		// After the losses above: their callbacks may still be queued on it.
		this.continuations.close();
		this.store.close();
	}

	/**
	 * Check at once whether this registry still holds the given key, because the store said the
	 * key may be gone (a keyspace event). A grant of this registry that the store no longer holds
	 * is declared lost; any other suspicion costs nothing but a map lookup. Exclusive and write
	 * locks only. Called on the driver's thread: the check runs on the watchdog's I/O thread.
	 * @param key the user key
	 */
	protected final void suspectLoss(String key) {
		this.gates.suspected(key).forEach(this.upkeep::confirmInBackground);
	}

	private void requireOpen() {
		if (this.closed) {
			throw new IllegalStateException("Lock registry is closed");
		}
	}

	/**
	 * Check a key given as a string: the rule every {@link LockRequest} applies, this registry's
	 * key limit (which may replace a long key by its digest form), then the store's own.
	 * @return the key to lock
	 */
	private String usableKey(String key) {
		String locked = lockKey(key);
		this.store.checkKey(locked);
		return locked;
	}

	/**
	 * Return the engine's request for a {@link LockRequest}, with the store's key rule checked.
	 */
	private HoldRequest holdRequest(LockRequest request, HoldRequest.Waiter waiter) {
		HoldRequest hold = HoldRequest.of(request, waiter, this.settings);
		this.store.checkKey(hold.key());
		return hold;
	}

	private HeldLease holdFor(HoldRequest request) {
		requireOpen();
		try {
			return request.ownedByThread() ? this.threadHolds.hold(request) : this.acquirer.hold(request);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw request.interrupted(ex);
		}
	}

}

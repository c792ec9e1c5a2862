package io.distlock.engine;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockContext;
import io.distlock.core.LockKeys;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockListener.ReleaseOutcome;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;

/**
 * The lock engine over a {@link LockStore}: what every registry does whatever holds its grants.
 * <p>
 * One thread per key per registry talks to the store; the others queue on a local gate, so
 * reentrancy and local handoffs cost no round trip. A thread that finds the key held by another
 * process waits for a release notification, and retries after the holder's remaining lease or a
 * jittered retry interval, whichever comes first, so that a lost notification or a silent expiry
 * never makes it sleep until its timeout. A {@link Watchdog} renews grants that have no fixed
 * lease and signals a loss exactly once.
 */
public abstract class AbstractLockRegistry implements LockRegistry, AutoCloseable {

	private static final Log logger = LogFactory.getLog(AbstractLockRegistry.class);

	/** A wait without a deadline, for {@code lock()} and {@code lockInterruptibly()}. */
	static final long WAIT_FOREVER = Long.MAX_VALUE;

	private final LockStore store;

	private final RegistrySettings settings;

	private final LockListener listener;

	private final KeyGates gates = new KeyGates();

	private final Watchdog watchdog;

	private final ReentrantLock listenLock = new ReentrantLock();

	private volatile boolean listening;

	private volatile long lastListenAttemptNanos;

	private volatile boolean listenAttempted;

	private volatile boolean closed;

	private final AtomicLong grantSequence = new AtomicLong();

	private final LossStatistics lossStatistics = new LossStatistics();

	/**
	 * Create a registry over a store.
	 * @param store where grants live
	 * @param settings the validated options
	 */
	protected AbstractLockRegistry(LockStore store, RegistrySettings settings) {
		this.store = store;
		this.settings = settings;
		this.listener = new GuardedLockListener(settings.listener());
		this.watchdog = new Watchdog(store, settings, this.listener, this::declareLost);
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
		return new RegistryLock(this, usableKey(key));
	}

	@Override
	public LockLease acquire(LockRequest request) {
		HeldLease lease = acquireLease(request);
		if (lease == null) {
			throw new LockAcquisitionException(request.key(), "Could not acquire lock for key '" + request.key()
					+ "' within " + request.waitTime().toMillis() + "ms", null);
		}
		return lease;
	}

	@Override
	public Optional<LockLease> tryAcquire(LockRequest request) {
		return Optional.ofNullable(acquireLease(request));
	}

	@Override
	public <T> T executeLocked(LockRequest request, Callable<T> task) {
		LockLease lease = acquire(request);
		LockContext.bind(lease);
		T result;
		try {
			result = task.call();
		}
		catch (Throwable ex) {
			LockContext.unbind(lease);
			releaseAfterFailure(lease, ex);
			if (ex instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (ex instanceof Error error) {
				throw error;
			}
			throw new UndeclaredThrowableException(ex);
		}
		LockContext.unbind(lease);
		lease.release();
		return result;
	}

	/**
	 * Return how many keys currently have local state (held or waited for). Zero when nothing is
	 * held or awaited: the registry keeps nothing per key beyond that.
	 * @return the number of keys with local state
	 */
	public int localKeyCount() {
		return this.gates.size();
	}

	/**
	 * Return the leases this registry holds now, one per grant.
	 * @return a snapshot of the held leases
	 */
	public List<LockLease> heldLeases() {
		List<LockLease> held = new ArrayList<>();
		for (Gate gate : this.gates.all()) {
			Grant grant = gate.grant();
			if (grant != null && grant.primaryLease() != null) {
				held.add(grant.primaryLease());
			}
		}
		return held;
	}

	/**
	 * Return a snapshot of the locks this registry holds now.
	 * @return one entry per grant
	 */
	public List<HeldLock> heldLocks() {
		List<HeldLock> held = new ArrayList<>();
		for (Gate gate : this.gates.all()) {
			Grant grant = gate.grant();
			if (grant != null) {
				held.add(new HeldLock(grant.name(), grant.key(), grant.acquiredAt(), grant.fencingToken(),
						Duration.ofNanos(Math.max(0, grant.remainingNanos())), grant.renewals(), grant.renewable(),
						grant.holds().get()));
			}
		}
		return held;
	}

	/**
	 * Return how many locks this registry lost and when it last did.
	 * @return the loss statistics
	 */
	public LossStatistics getLossStatistics() {
		return this.lossStatistics;
	}

	/**
	 * Return whether the watchdog still runs: it stops only when the registry is closed.
	 * @return whether held locks are renewed and their deadlines checked
	 */
	public boolean isWatchdogRunning() {
		return !this.closed && this.watchdog.isRunning();
	}

	/**
	 * Check that the lock store answers.
	 * @throws RuntimeException the store's exception if it does not
	 */
	public void checkStore() {
		this.store.ping();
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
		this.watchdog.close();
		for (Gate gate : this.gates.all()) {
			Grant grant = gate.grant();
			if (grant != null) {
				declareLost(grant, "its registry was closed while it was held");
			}
		}
		this.store.close();
	}

	// ---- engine, used by RegistryLock and HeldLease

	boolean lockForThread(String key, long waitNanos, boolean interruptible) throws InterruptedException {
		HeldLease lease = hold(key, LockRequest.DEFAULT_NAME, waitNanos, null, true, interruptible);
		if (lease == null) {
			return false;
		}
		lease.grant().gate().lockHolds().addLast(lease);
		LockContext.bind(lease);
		return true;
	}

	void unlockForThread(String key) {
		Gate gate = this.gates.find(key);
		if (gate == null || gate.owner() != Thread.currentThread()) {
			throw new IllegalMonitorStateException(
					"Cannot unlock lock for key '" + key + "': it is not held by the current thread");
		}
		HeldLease lease = gate.lockHolds().pollLast();
		if (lease == null) {
			throw new IllegalMonitorStateException("Cannot unlock lock for key '" + key
					+ "': the current thread holds it through a LockLease; release that lease instead");
		}
		LockContext.unbind(lease);
		lease.release();
	}

	boolean isHeldByCurrentThread(String key) {
		Gate gate = this.gates.find(key);
		if (gate == null || gate.owner() != Thread.currentThread()) {
			return false;
		}
		Grant grant = gate.grant();
		return grant != null && grant.isValid();
	}

	LockLease currentThreadLease(String key) {
		Gate gate = this.gates.find(key);
		Grant grant = (gate != null && gate.owner() == Thread.currentThread()) ? gate.grant() : null;
		if (grant == null) {
			throw new IllegalMonitorStateException("Lock for key '" + key + "' is not held by the current thread");
		}
		HeldLease innermost = gate.lockHolds().peekLast();
		return (innermost != null) ? innermost : grant.primaryLease();
	}

	void addLostCallback(Grant grant, Consumer<? super LockLostException> callback) {
		if (!grant.addLostCallback(callback)) {
			runLostCallback(grant, callback, grant.lostException());
		}
	}

	void releaseHold(HeldLease lease, Duration holdAtLeast) {
		Grant grant = lease.grant();
		Gate gate = grant.gate();
		if (grant.holds().decrementAndGet() > 0) {
			this.gates.release(gate);
			if (grant.isLost()) {
				throw grant.lostException();
			}
			return;
		}
		releaseGrant(grant, holdAtLeast);
	}

	private String usableKey(String key) {
		LockKeys.requireUsable(key);
		this.store.checkKey(key);
		return key;
	}

	private HeldLease acquireLease(LockRequest request) {
		usableKey(request.key());
		try {
			return hold(request.key(), request.name(), request.waitTime().toNanos(), request.leaseTime(),
					request.ownedByThread(), true);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException(request.key(),
					"Interrupted while waiting for lock for key '" + request.key() + "'", ex);
		}
	}

	/**
	 * Take one hold of a key for the current thread.
	 * @return the hold, or {@code null} if the key stayed taken for the whole wait
	 */
	private HeldLease hold(String key, String name, long waitNanos, Duration fixedLease, boolean ownedByThread,
			boolean interruptible)
			throws InterruptedException {
		if (this.closed) {
			throw new IllegalStateException("Lock registry is closed");
		}
		long startNanos = System.nanoTime();
		Thread current = Thread.currentThread();
		Gate gate = this.gates.retain(key);
		HeldLease lease = null;
		try {
			if (gate.owner() == current) {
				lease = reenter(gate);
				return lease;
			}
			this.listener.onAcquiring(name, key);
			boolean entered;
			try {
				entered = enterGate(gate, startNanos, waitNanos, interruptible);
			}
			catch (InterruptedException ex) {
				this.listener.onNotAcquired(name, key, elapsed(startNanos), ex);
				throw ex;
			}
			if (!entered) {
				this.listener.onNotAcquired(name, key, elapsed(startNanos), null);
				return null;
			}
			Grant grant;
			try {
				grant = acquireFromStore(gate, name, startNanos, waitNanos, interruptible, fixedLease);
			}
			catch (RuntimeException | InterruptedException ex) {
				gate.leave();
				this.listener.onNotAcquired(name, key, elapsed(startNanos), ex);
				throw ex;
			}
			if (grant == null) {
				gate.leave();
				this.listener.onNotAcquired(name, key, elapsed(startNanos), null);
				return null;
			}
			lease = new HeldLease(this, grant);
			grant.primaryLease(lease);
			// A detached hold has no owner thread: nobody re-enters it, anyone may release it.
			gate.occupy(ownedByThread ? current : null, grant);
			this.watchdog.watch(grant);
			if (logger.isDebugEnabled()) {
				logger.debug("Acquired lock for key '" + key + "' with fencing token " + grant.fencingToken());
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

	private HeldLease reenter(Gate gate) {
		Grant grant = gate.grant();
		if (!grant.isActive()) {
			throw grant.lostException();
		}
		grant.holds().incrementAndGet();
		return new HeldLease(this, grant);
	}

	private boolean enterGate(Gate gate, long startNanos, long waitNanos, boolean interruptible)
			throws InterruptedException {
		if (waitNanos == 0) {
			return gate.tryEnter();
		}
		if (waitNanos == WAIT_FOREVER) {
			if (interruptible) {
				gate.enterInterruptibly();
			}
			else {
				gate.enterUninterruptibly();
			}
			return true;
		}
		return gate.tryEnter(waitNanos - (System.nanoTime() - startNanos));
	}

	private Grant acquireFromStore(Gate gate, String name, long startNanos, long waitNanos, boolean interruptible,
			Duration fixedLease) throws InterruptedException {
		String key = gate.key();
		Duration leaseTime = (fixedLease != null) ? fixedLease : this.settings.leaseTime();
		long leaseNanos = leaseTime.toNanos();
		long driftNanos = RegistrySettings.driftMargin(leaseTime).toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				String owner = nextOwner();
				gate.clearReleaseSignals();
				long sentNanos = System.nanoTime();
				LockStore.Acquisition attempt = attemptStore(key, owner, leaseTime,
						waitHint(remainingWait(startNanos, waitNanos, sentNanos)));
				long now = System.nanoTime();
				if (attempt.acquired()) {
					long validUntil = sentNanos + leaseNanos - driftNanos;
					if (validUntil - now > 0) {
						return new Grant(key, name, owner, attempt.fencingToken(), leaseTime, fixedLease == null, sentNanos,
								validUntil, sentNanos + this.settings.renewalInterval().toNanos(), gate);
					}
					// The reply came so late that the lease may already have expired: it proves
					// nothing. Give the key back (owner-compared, so harmless) and carry on.
					logger.warn("Lock for key '" + key + "' was granted only after its lease of " + leaseTime.toMillis()
							+ "ms had run out locally; releasing it and treating it as not acquired");
					releaseQuietly(key, owner);
				}
				long remaining = remainingWait(startNanos, waitNanos, now);
				if (remaining <= 0) {
					return null;
				}
				if (this.settings.waitStrategy() == WaitStrategy.PUB_SUB && !this.listening && startListening()) {
					// A release published before the subscription existed was missed: try again
					// now rather than after a pause.
					continue;
				}
				try {
					gate.awaitRelease(retryPauseNanos(attempt.holderTtlMillis(), remaining));
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						throw ex;
					}
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private LockStore.Acquisition attemptStore(String key, String owner, Duration leaseTime, Duration waitHint) {
		try {
			return this.store.tryAcquire(key, owner, leaseTime, waitHint);
		}
		catch (RuntimeException ex) {
			// The attempt may have been applied and only its reply lost: give back whatever we may
			// hold, so the key does not stay taken for a whole lease. In the background, so that
			// an unreachable store costs the caller one command timeout, not two.
			this.watchdog.runInBackground(() -> releaseQuietly(key, owner));
			throw new LockAcquisitionException(key,
					"Could not acquire lock for key '" + key + "': the lock store failed: " + ex.getMessage(), ex);
		}
	}

	private void releaseQuietly(String key, String owner) {
		try {
			this.store.release(key, owner);
		}
		catch (RuntimeException ex) {
			// Best effort after a failed or late acquisition; the key expires with its lease anyway.
			logger.debug("Could not give back lock for key '" + key + "' after a failed acquisition", ex);
		}
	}

	private Duration waitHint(long remainingNanos) {
		if (remainingNanos <= 0 || this.settings.waitStrategy() != WaitStrategy.PUB_SUB) {
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

	private static long remainingWait(long startNanos, long waitNanos, long now) {
		return (waitNanos == WAIT_FOREVER) ? WAIT_FOREVER : waitNanos - (now - startNanos);
	}

	private boolean startListening() {
		long now = System.nanoTime();
		boolean triedRecently = this.listenAttempted
				&& now - this.lastListenAttemptNanos < this.settings.retryInterval().toNanos();
		if (triedRecently || !this.listenLock.tryLock()) {
			// Someone else is subscribing, or tried recently: poll meanwhile.
			return false;
		}
		try {
			if (this.listening) {
				return false;
			}
			this.lastListenAttemptNanos = now;
			this.listenAttempted = true;
			this.listening = this.store.listen(this::keyReleased);
			return this.listening;
		}
		finally {
			this.listenLock.unlock();
		}
	}

	private void keyReleased(String key) {
		Gate gate = this.gates.find(key);
		if (gate != null) {
			gate.signalReleased();
		}
	}

	private String nextOwner() {
		return this.settings.instanceId() + ":" + this.grantSequence.incrementAndGet();
	}

	private void releaseGrant(Grant grant, Duration holdAtLeast) {
		Gate gate = grant.gate();
		boolean wasActive = grant.beginRelease();
		this.watchdog.unwatch(grant);
		ReleaseOutcome outcome;
		try {
			outcome = releaseInStore(grant, holdAtLeast) ? ReleaseOutcome.RELEASED : ReleaseOutcome.LOST;
		}
		catch (RuntimeException ex) {
			// Degraded path: the work under the lock is done; the key frees itself when its lease
			// expires, since the watchdog no longer renews it. Failing the caller here would
			// report finished work as failed.
			logger.warn("Could not release lock for key '" + grant.key() + "'; it expires within "
					+ grant.leaseTime().toMillis() + "ms", ex);
			outcome = ReleaseOutcome.FAILED;
		}
		if (wasActive && outcome == ReleaseOutcome.LOST) {
			declareLost(grant, "it had already expired or been taken over in the store when it was released", true);
		}
		grant.finishRelease();
		if (grant.isLost()) {
			// Also when the watchdog declared the loss first: the holder is told either way.
			outcome = ReleaseOutcome.LOST;
		}
		Duration held = Duration.ofNanos(System.nanoTime() - grant.acquiredNanos());
		gate.leave();
		this.gates.release(gate);
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock for key '" + grant.key() + "' after " + held.toMillis() + "ms: " + outcome);
		}
		this.listener.onReleased(grant.primaryLease(), held, outcome);
		if (grant.isLost()) {
			throw grant.lostException();
		}
	}

	/**
	 * Delete the grant in the store, or, while {@code holdAtLeast} since the grant has not
	 * passed, leave it there to expire then (an owner-compared extension to exactly that).
	 * @return whether the grant was still ours
	 */
	private boolean releaseInStore(Grant grant, Duration holdAtLeast) {
		long keepNanos = grant.acquiredNanos() + holdAtLeast.toNanos() - System.nanoTime();
		if (keepNanos < TimeUnit.MILLISECONDS.toNanos(1)) {
			return this.store.release(grant.key(), grant.owner());
		}
		return this.store.renew(List.of(new LockStore.HeldKey(grant.key(), grant.owner())),
				Duration.ofNanos(keepNanos))[0];
	}

	private void declareLost(Grant grant, String reason) {
		declareLost(grant, reason, false);
	}

	private void declareLost(Grant grant, String reason, boolean releasing) {
		List<Consumer<? super LockLostException>> callbacks = grant.markLost(reason, releasing);
		if (callbacks == null) {
			return;
		}
		LockLostException lost = grant.lostException();
		this.lossStatistics.recordLoss();
		logger.error(lost.getMessage());
		this.listener.onLost(grant.primaryLease(), lost);
		for (Consumer<? super LockLostException> callback : callbacks) {
			runLostCallback(grant, callback, lost);
		}
	}

	private void runLostCallback(Grant grant, Consumer<? super LockLostException> callback, LockLostException lost) {
		try {
			callback.accept(lost);
		}
		catch (RuntimeException ex) {
			// Lost-lease handling: one failing callback must not keep the others from running.
			logger.warn("onLost callback for lock for key '" + grant.key() + "' failed; ignored", ex);
		}
	}

	private static void releaseAfterFailure(LockLease lease, Throwable failure) {
		try {
			lease.release();
		}
		catch (LockLostException ex) {
			failure.addSuppressed(ex);
		}
	}

	private static Duration elapsed(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

}

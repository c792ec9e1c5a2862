package io.distlock.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;

/**
 * One hold of a grant, as handed to the caller; reentrant holds of the same grant share its
 * token and validity but are released one by one. A release goes straight to the
 * {@link GrantReleaser}, everything else it asks of the store to the {@link LeaseUpkeep}.
 */
final class HeldLease implements LockLease {

	private static final VarHandle RELEASED;

	static {
		try {
			RELEASED = MethodHandles.lookup().findVarHandle(HeldLease.class, "released", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private static final Log logger = LogFactory.getLog(HeldLease.class);

	private final HeldGrant held;

	private final Gate gate;

	private final GrantReleaser releaser;

	private final LeaseUpkeep upkeep;

	private final Continuations continuations;

	/** Set once, by the first release; a field rather than an AtomicBoolean, one object less per hold. */
	private volatile boolean released;

	/**
	 * Create the first hold of a fresh grant, which its listener is told of.
	 * @param gate the gate the hold occupies, one reference of which the hold keeps until it is
	 * released
	 * @param ownerThread the thread that owns the grant, {@code null} for a hold its lease owns
	 * @param executor where the holder's continuations run, {@code null} for the registry's default
	 */
	HeldLease(Grant grant, Gate gate, Thread ownerThread, Executor executor, GrantReleaser releaser,
			LeaseUpkeep upkeep, Continuations continuations) {
		this.held = new HeldGrant(grant, gate.gateKey(), ownerThread, executor, this);
		this.gate = gate;
		this.releaser = releaser;
		this.upkeep = upkeep;
		this.continuations = continuations;
	}

	private HeldLease(HeldLease first, Gate gate) {
		this.held = first.held;
		this.gate = gate;
		this.releaser = first.releaser;
		this.upkeep = first.upkeep;
		this.continuations = first.continuations;
	}

	/**
	 * Return one more hold of this lease's grant, for a re-entry that counted it already.
	 * @param gate the gate the new hold occupies, one reference of which it keeps until it is
	 * released
	 */
	HeldLease reentered(Gate gate) {
		return new HeldLease(this, gate);
	}

	HeldGrant held() {
		return this.held;
	}

	Grant grant() {
		return this.held.grant();
	}

	boolean isReleased() {
		return this.released;
	}

	@Override
	public String key() {
		return this.held.grant().key();
	}

	@Override
	public String name() {
		return this.held.grant().name();
	}

	@Override
	public long fencingToken() {
		return this.held.grant().fencingToken();
	}

	@Override
	public boolean isValid() {
		return !this.released && this.held.isValid();
	}

	@Override
	public Duration remaining() {
		long remaining = isValid() ? this.held.remainingNanos() : 0;
		return Duration.ofNanos(Math.max(0, remaining));
	}

	@Override
	public boolean confirm() {
		return !this.released && this.upkeep.confirm(this.held);
	}

	@Override
	public CompletableFuture<Boolean> confirmAsync() {
		if (this.released) {
			return CompletableFuture.completedFuture(false);
		}
		// Finished where user code may run: a loss it finds has told its onLost callbacks before
		// the stage completes.
		return this.upkeep.confirmAsync(this.held, this.continuations.placing(this.held.executor()));
	}

	@Override
	public boolean extend(Duration leaseTime) {
		if (this.released) {
			throw releasedException();
		}
		return this.upkeep.extend(this.held, leaseTime);
	}

	@Override
	public CompletableFuture<Boolean> extendAsync(Duration leaseTime) {
		if (this.released) {
			return CompletableFuture.failedFuture(releasedException());
		}
		return this.upkeep.extendAsync(this.held, leaseTime, this.continuations.placing(this.held.executor()));
	}

	private IllegalStateException releasedException() {
		return new IllegalStateException("Cannot extend lock for key '" + key() + "': the lease was released");
	}

	@Override
	public LockLease onLost(Consumer<? super LockLostException> callback) {
		this.upkeep.addLostCallback(this.held, callback);
		return this;
	}

	@Override
	public void release() {
		release(Duration.ZERO);
	}

	@Override
	public void release(Duration holdAtLeast) {
		if (this.released) {
			return;
		}
		// Refused before the lease counts as released: a bad argument loses nothing.
		this.releaser.requireHoldable(holdAtLeast);
		if (RELEASED.compareAndSet(this, false, true)) {
			// Bounded inside: a release waits at most RELEASE_TIMEOUT for the store, then the key
			// is left to expire. The margin here only covers scheduling. The store's answer is
			// finished on this thread, which waits for it anyway, not on the driver's.
			WaitingCaller caller = new WaitingCaller(this.continuations, this.held.executor());
			caller.await(this.releaser.release(this.held, this.gate, holdAtLeast, caller, false),
					StoreCalls.RELEASE_TIMEOUT.plus(StoreCalls.RELEASE_TIMEOUT));
		}
	}

	@Override
	public CompletableFuture<Void> releaseAsync() {
		return releaseAsync(Duration.ZERO);
	}

	@Override
	public CompletableFuture<Void> releaseAsync(Duration holdAtLeast) {
		if (this.released) {
			return CompletableFuture.completedFuture(null);
		}
		try {
			this.releaser.requireHoldable(holdAtLeast);
		}
		catch (IllegalArgumentException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (!RELEASED.compareAndSet(this, false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		Continuations continuations = this.continuations;
		Executor executor = this.held.executor();
		if (continuations.mayRunUserCode()) {
			return continuations.handOut(releaseHere(holdAtLeast), executor);
		}
		// Asked for on the driver's or the engine's thread (a reactive body that completed
		// there): the release, the handoff it may make and the next holder's code go on on the
		// executor instead.
		Continuations.PlacedFuture<Void> released = continuations.newFuture(executor);
		continuations.run(executor, () -> released.completeFrom(releaseHere(holdAtLeast)));
		return released;
	}

	/**
	 * Release on this thread, which may run user code. A grant handed to an asynchronous waiter
	 * is taken on this thread once the release returned, rather than on the timer: asynchronous
	 * code released it, so asynchronous code may continue here. The store's answer is finished
	 * where the listener may be told.
	 */
	private CompletableFuture<Void> releaseHere(Duration holdAtLeast) {
		return this.releaser.release(this.held, this.gate, holdAtLeast,
				this.continuations.forListener(this.held.executor()), true);
	}

	/**
	 * Release a hold granted to an acquisition that was given up meanwhile.
	 */
	void releaseUnwanted() {
		releaseAsync().whenComplete((done, failure) -> {
			if (failure != null) {
				logger.debug("Released lock for key '" + key() + "' granted after its acquisition was given up",
						failure);
			}
		});
	}

	@Override
	public String toString() {
		return "LockLease[name='" + name() + "', key='" + key() + "', fencingToken=" + fencingToken() + ", valid=" + isValid() + "]";
	}

}

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
 * {@link GrantReleaser}.
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

	private final RegistryParts parts;

	private final Grant grant;

	/** Where this hold's asynchronous continuations run; {@code null} for the registry's default. */
	private final Executor executor;

	/** Set once, by the first release; a field rather than an AtomicBoolean, one object less per hold. */
	private volatile boolean released;

	HeldLease(RegistryParts parts, Grant grant, Executor executor) {
		this.parts = parts;
		this.grant = grant;
		this.executor = executor;
	}

	Grant grant() {
		return this.grant;
	}

	/**
	 * Return where this hold's asynchronous continuations run when the thread that completes
	 * them must not run user code.
	 * @return the executor its request named, or {@code null} for the registry's default
	 */
	Executor executor() {
		return this.executor;
	}

	boolean isReleased() {
		return this.released;
	}

	@Override
	public String key() {
		return this.grant.key();
	}

	@Override
	public String name() {
		return this.grant.name();
	}

	@Override
	public long fencingToken() {
		return this.grant.fencingToken();
	}

	@Override
	public boolean isValid() {
		return !this.released && this.grant.isValid();
	}

	@Override
	public Duration remaining() {
		long remaining = isValid() ? this.grant.remainingNanos() : 0;
		return Duration.ofNanos(Math.max(0, remaining));
	}

	@Override
	public boolean confirm() {
		return !this.released && this.parts.upkeep().confirm(this.grant);
	}

	@Override
	public CompletableFuture<Boolean> confirmAsync() {
		if (this.released) {
			return CompletableFuture.completedFuture(false);
		}
		// Finished where user code may run: a loss it finds has told its onLost callbacks before
		// the stage completes.
		return this.parts.upkeep().confirmAsync(this.grant, this.parts.continuations().placing(this.executor));
	}

	@Override
	public boolean extend(Duration leaseTime) {
		if (this.released) {
			throw releasedException();
		}
		return this.parts.upkeep().extend(this.grant, leaseTime);
	}

	@Override
	public CompletableFuture<Boolean> extendAsync(Duration leaseTime) {
		if (this.released) {
			return CompletableFuture.failedFuture(releasedException());
		}
		return this.parts.upkeep().extendAsync(this.grant, leaseTime,
				this.parts.continuations().placing(this.executor));
	}

	private IllegalStateException releasedException() {
		return new IllegalStateException("Cannot extend lock for key '" + key() + "': the lease was released");
	}

	@Override
	public LockLease onLost(Consumer<? super LockLostException> callback) {
		this.parts.upkeep().addLostCallback(this.grant, callback);
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
		this.parts.settings().requireAtMostMaxLease(holdAtLeast, "holdAtLeast");
		if (RELEASED.compareAndSet(this, false, true)) {
			// Bounded inside: a release waits at most RELEASE_TIMEOUT for the store, then the key
			// is left to expire. The margin here only covers scheduling. The store's answer is
			// finished on this thread, which waits for it anyway, not on the driver's.
			WaitingCaller caller = new WaitingCaller(this.parts.continuations().placing(this.executor));
			caller.await(this.parts.releaser().release(this, holdAtLeast, caller),
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
			this.parts.settings().requireAtMostMaxLease(holdAtLeast, "holdAtLeast");
		}
		catch (IllegalArgumentException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (!RELEASED.compareAndSet(this, false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		Continuations continuations = this.parts.continuations();
		if (continuations.mayRunUserCode()) {
			return continuations.handOut(releaseHere(holdAtLeast), this.executor);
		}
		// Asked for on the driver's or the engine's thread (a reactive body that completed
		// there): the release, the handoff it may make and the next holder's code go on on the
		// executor instead.
		PlacedFuture<Void> released = continuations.newFuture(this.executor);
		continuations.run(this.executor, () -> released.completeFrom(releaseHere(holdAtLeast)));
		return released;
	}

	/**
	 * Release on this thread, which may run user code. A grant handed to an asynchronous waiter
	 * is taken on this thread once the release returned, rather than on the timer: asynchronous
	 * code released it, so asynchronous code may continue here. The store's answer is finished
	 * where the listener may be told.
	 */
	private CompletableFuture<Void> releaseHere(Duration holdAtLeast) {
		Continuations continuations = this.parts.continuations();
		try (HandoffTrampoline.Scope scope = HandoffTrampoline.open()) {
			return this.parts.releaser().release(this, holdAtLeast, continuations.forListener(this.executor));
		}
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

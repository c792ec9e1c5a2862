package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;

/**
 * One hold of a grant, as handed to the caller; reentrant holds of the same grant share its
 * token and validity but are released one by one.
 */
final class HeldLease implements LockLease {

	private final AbstractLockRegistry registry;

	private final Grant grant;

	private final AtomicBoolean released = new AtomicBoolean();

	HeldLease(AbstractLockRegistry registry, Grant grant) {
		this.registry = registry;
		this.grant = grant;
	}

	Grant grant() {
		return this.grant;
	}

	boolean isReleased() {
		return this.released.get();
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
		return !this.released.get() && this.grant.isValid();
	}

	@Override
	public Duration remaining() {
		long remaining = isValid() ? this.grant.remainingNanos() : 0;
		return Duration.ofNanos(Math.max(0, remaining));
	}

	@Override
	public boolean confirm() {
		return !this.released.get() && this.registry.confirm(this.grant);
	}

	@Override
	public CompletableFuture<Boolean> confirmAsync() {
		if (this.released.get()) {
			return CompletableFuture.completedFuture(false);
		}
		return this.registry.confirmAsync(this.grant);
	}

	@Override
	public boolean extend(Duration leaseTime) {
		if (this.released.get()) {
			throw releasedException();
		}
		return this.registry.extend(this.grant, leaseTime);
	}

	@Override
	public CompletableFuture<Boolean> extendAsync(Duration leaseTime) {
		if (this.released.get()) {
			return CompletableFuture.failedFuture(releasedException());
		}
		return this.registry.extendAsync(this.grant, leaseTime);
	}

	private IllegalStateException releasedException() {
		return new IllegalStateException("Cannot extend lock for key '" + key() + "': the lease was released");
	}

	@Override
	public LockLease onLost(Consumer<? super LockLostException> callback) {
		this.registry.addLostCallback(this.grant, callback);
		return this;
	}

	@Override
	public void release() {
		release(Duration.ZERO);
	}

	@Override
	public void release(Duration holdAtLeast) {
		if (this.released.compareAndSet(false, true)) {
			this.registry.releaseHold(this, holdAtLeast);
		}
	}

	@Override
	public CompletableFuture<Void> releaseAsync() {
		return releaseAsync(Duration.ZERO);
	}

	@Override
	public CompletableFuture<Void> releaseAsync(Duration holdAtLeast) {
		if (this.released.compareAndSet(false, true)) {
			return this.registry.releaseHoldAsync(this, holdAtLeast);
		}
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public String toString() {
		return "LockLease[name='" + name() + "', key='" + key() + "', fencingToken=" + fencingToken() + ", valid=" + isValid() + "]";
	}

}

package io.distlock.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.distlock.store.LockMode;
import io.distlock.store.LockStore;

/**
 * A {@link LocalHandoffStore} that forwards every call to another, for tests that change one behaviour
 * of a real store (block its renewals, forget a token) and keep the rest.
 */
public class ForwardingLockStore implements LocalHandoffStore {

	private final LocalHandoffStore delegate;

	public ForwardingLockStore(LocalHandoffStore delegate) {
		this.delegate = delegate;
	}

	@Override
	public void checkKey(String key) {
		this.delegate.checkKey(key);
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		return this.delegate.tryAcquire(mode, key, owner, leaseTime, waitTime);
	}

	@Override
	public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
		return this.delegate.release(mode, key, owner);
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquireReadUnderWrite(String key, String owner, Duration leaseTime,
			String writeOwner) {
		return this.delegate.tryAcquireReadUnderWrite(key, owner, leaseTime, writeOwner);
	}

	@Override
	public CompletableFuture<Boolean> extend(HeldKey grant, Duration leaseTime) {
		return this.delegate.extend(grant, leaseTime);
	}

	@Override
	public CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken) {
		return this.delegate.releaseExclusive(key, owner, lastToken);
	}

	@Override
	public CompletableFuture<Checkpoint> keepUnlessAwaited(String key, String owner, long lastToken, Duration leaseTime) {
		return this.delegate.keepUnlessAwaited(key, owner, lastToken, leaseTime);
	}

	@Override
	public CompletableFuture<Boolean> keepExclusive(String key, String owner, long lastToken, Duration keepTime) {
		return this.delegate.keepExclusive(key, owner, lastToken, keepTime);
	}

	@Override
	public CompletableFuture<Boolean> isHeld(HeldKey grant) {
		return this.delegate.isHeld(grant);
	}

	@Override
	public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
		return this.delegate.renew(grants, leaseTime);
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		return this.delegate.listen(releasedKeys);
	}

	@Override
	public CompletableFuture<Void> ping() {
		return this.delegate.ping();
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}

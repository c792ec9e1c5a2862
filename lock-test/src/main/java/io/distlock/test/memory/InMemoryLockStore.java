package io.distlock.test.memory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockMode;

/**
 * A {@link LockStore} in this JVM's memory: the asynchronous SPI over {@link InMemoryLocks},
 * whose every answer is ready at once (on the calling thread), and release notifications to the
 * registry's listener, sent outside the state's lock as Redis publishes after its script.
 */
final class InMemoryLockStore implements LocalHandoffStore {

	private final InMemoryLocks locks = new InMemoryLocks();

	private volatile Consumer<String> releasedKeys;

	@Override
	public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		return answer(() -> this.locks.tryAcquire(mode, key, owner, leaseTime, waitTime));
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquireReadUnderWrite(String key, String owner, Duration leaseTime,
			String writeOwner) {
		return answer(() -> this.locks.tryAcquireReadUnderWrite(key, owner, leaseTime, writeOwner));
	}

	@Override
	public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
		return answer(() -> notifyIf(this.locks.release(mode, key, owner), key));
	}

	@Override
	public CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken) {
		return answer(() -> {
			Release release = this.locks.releaseExclusive(key, owner, lastToken);
			notifyIf(release != Release.NOT_HELD, key);
			return release;
		});
	}

	@Override
	public CompletableFuture<Checkpoint> keepUnlessAwaited(String key, String owner, long lastToken,
			Duration leaseTime) {
		return answer(() -> {
			Checkpoint checkpoint = this.locks.keepUnlessAwaited(key, owner, lastToken, leaseTime);
			notifyIf(checkpoint.release() == Release.RELEASED || checkpoint.release() == Release.RELEASED_AWAITED,
					key);
			return checkpoint;
		});
	}

	@Override
	public CompletableFuture<Boolean> keepExclusive(String key, String owner, long lastToken, Duration keepTime) {
		return answer(() -> this.locks.keepExclusive(key, owner, lastToken, keepTime));
	}

	@Override
	public CompletableFuture<Boolean> isHeld(HeldKey grant) {
		return answer(() -> this.locks.isHeld(grant));
	}

	@Override
	public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
		return answer(() -> this.locks.renew(grants, leaseTime));
	}

	@Override
	public CompletableFuture<Void> ping() {
		// Always reachable: it lives in this JVM.
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		this.releasedKeys = releasedKeys;
		return true;
	}

	@Override
	public void close() {
		this.releasedKeys = null;
	}

	/**
	 * Remove an exclusive or fair lock whoever holds it, as an operator's {@code DEL} would.
	 * @return whether the key was held
	 */
	boolean delete(String key) {
		return this.locks.delete(key);
	}

	boolean isHeld(String key) {
		return this.locks.isHeld(key);
	}

	private boolean notifyIf(boolean released, String key) {
		Consumer<String> listener = this.releasedKeys;
		if (released && listener != null) {
			listener.accept(key);
		}
		return released;
	}

	private static <T> CompletableFuture<T> answer(Supplier<T> operation) {
		try {
			return CompletableFuture.completedFuture(operation.get());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}

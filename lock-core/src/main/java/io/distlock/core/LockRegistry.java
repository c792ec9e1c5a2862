package io.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A source of distributed locks identified by a key.
 * <p>
 * Every lock is reentrant for the thread that holds it, every grant carries a fencing token that
 * only grows, and a holder is told when its lock is lost (see {@link LockLease#onLost}).
 * Implementations: {@code RedisLockRegistry} for one Redis, {@code InMemoryLockRegistry} (in
 * {@code distlock-test}) for unit tests inside one JVM.
 *
 * <pre class="code">
 * try (LockLease lease = registry.acquire("stock:42", Duration.ofSeconds(2))) {
 *     repository.reserve(42, 1, lease.fencingToken());
 * }
 * </pre>
 */
public interface LockRegistry {

	/**
	 * Return a {@link java.util.concurrent.locks.Lock} for the given key. Obtaining is free: the
	 * lock talks to the store only when it is locked. Each call returns a new, stateless view;
	 * views of the same key and kind of lock from the same registry are {@code equals} and
	 * interchangeable (see {@link DistLock}).
	 * @param key the key to lock, neither {@code null} nor blank
	 * @return the lock for the key
	 * @throws LockKeyException if the key is unusable
	 */
	DistLock obtain(String key);

	/**
	 * Return a fair lock for the given key: waiters from every process are served in arrival
	 * order, through a queue in the store with a deadline per waiter, so that a dead waiter never
	 * blocks the queue for long. Slower than {@link #obtain(String)}: use it when starvation
	 * matters more than throughput.
	 * @param key the key to lock
	 * @return the fair lock for the key
	 * @throws LockKeyException if the key is unusable
	 */
	DistLock obtainFair(String key);

	/**
	 * Return a read/write lock for the given key.
	 * @param key the key to lock
	 * @return the read/write lock
	 * @throws LockKeyException if the key is unusable
	 */
	DistReadWriteLock obtainReadWrite(String key);

	/**
	 * Return one lock over several keys, taken all or none in a stable global (sorted) order, so
	 * that two multi-locks over overlapping keys can never deadlock each other. Each key is its
	 * own lock in the store, so in Redis Cluster the keys may live in different slots.
	 * @param keys the keys to lock together, at least one
	 * @return the multi-lock
	 * @throws LockKeyException if a key is unusable
	 */
	DistLock obtainMulti(String... keys);

	/**
	 * Acquire the lock for the given request, waiting at most its wait time.
	 * @param request what to lock and for how long to wait
	 * @return the lease of the acquired lock; release it (or close it) when done
	 * @throws LockAcquisitionException if the lock was not acquired in time, the wait was
	 * interrupted, or the store could not be reached
	 */
	LockLease acquire(LockRequest request);

	/**
	 * Try to acquire the lock for the given request, waiting at most its wait time.
	 * @param request what to lock and for how long to wait
	 * @return the lease, or empty if another holder kept the lock for the whole wait time
	 * @throws LockAcquisitionException if the wait was interrupted or the store could not be
	 * reached
	 */
	Optional<LockLease> tryAcquire(LockRequest request);

	/**
	 * Acquire the lock for a key, waiting at most {@code waitTime}, with the registry's default
	 * lease (renewed by the watchdog while held).
	 * @param key the key to lock
	 * @param waitTime how long to wait for the lock; {@link Duration#ZERO} tries once
	 * @return the lease of the acquired lock
	 * @throws LockAcquisitionException if the lock was not acquired in time
	 */
	default LockLease acquire(String key, Duration waitTime) {
		return acquire(LockRequest.of(key).waitTime(waitTime));
	}

	/**
	 * Try to acquire the lock for a key, waiting at most {@code waitTime}.
	 * @param key the key to lock
	 * @param waitTime how long to wait for the lock; {@link Duration#ZERO} tries once
	 * @return the lease, or empty if the lock stayed taken for the whole wait time
	 */
	default Optional<LockLease> tryAcquire(String key, Duration waitTime) {
		return tryAcquire(LockRequest.of(key).waitTime(waitTime));
	}

	/**
	 * Run a task under the lock for a key and release the lock afterwards.
	 * <p>
	 * The lease is available to the task through {@link LockContext#current()}. Runtime
	 * exceptions and errors from the task propagate unchanged; a checked exception is wrapped in
	 * an {@link java.lang.reflect.UndeclaredThrowableException}. If the lock was lost while the
	 * task ran, a {@link LockLostException} is thrown after the task (added as suppressed when
	 * the task itself failed).
	 * @param <T> the task's result type
	 * @param key the key to lock
	 * @param waitTime how long to wait for the lock
	 * @param task the work to run while holding the lock
	 * @return the task's result
	 * @throws LockAcquisitionException if the lock was not acquired in time; the task did not run
	 */
	default <T> T executeLocked(String key, Duration waitTime, Callable<T> task) {
		return executeLocked(LockRequest.of(key).waitTime(waitTime), task);
	}

	/**
	 * Run a task under the lock described by the request and release the lock afterwards.
	 * @param <T> the task's result type
	 * @param request what to lock and for how long to wait
	 * @param task the work to run while holding the lock
	 * @return the task's result
	 * @see #executeLocked(String, Duration, Callable)
	 */
	default <T> T executeLocked(LockRequest request, Callable<T> task) {
		return LockedCall.run(acquire(request), task);
	}

	/**
	 * Acquire the lock for the given request without blocking the calling thread. The returned
	 * stage completes with the lease once the lock is granted, or exceptionally with
	 * {@link LockAcquisitionException} when the wait time ran out or the store failed; the wait
	 * time bounds it whatever the store or the network do.
	 * <p>
	 * The hold is owned by its lease, not by a thread: no thread re-enters it (a second
	 * {@code acquireAsync} of the same key waits like any other acquisition), and any thread may
	 * release it, with {@link LockLease#release()} or {@link LockLease#releaseAsync()}.
	 * Reentrancy is a feature of the blocking API and {@link LockContext}.
	 * <p>
	 * Cancelling the stage ({@code toCompletableFuture().cancel(false)}) before the grant gives
	 * up the place in line and leaves no key behind; a grant that races the cancellation is
	 * released. The stage never completes on a thread of the store's driver or of the registry:
	 * a grant that arrives there completes it on the request's {@link LockRequest#executor
	 * executor}, or the registry's continuation pool; one that arrives on another thread (a
	 * release of this process that handed the lock over) completes it there.
	 * <p>
	 * The default implementation refuses: registries that implement it say so.
	 * @param request what to lock and for how long to wait
	 * @return a stage completed with the lease
	 */
	default CompletionStage<LockLease> acquireAsync(LockRequest request) {
		return CompletableFuture.failedFuture(new UnsupportedOperationException(
				getClass().getName() + " does not implement asynchronous acquisition"));
	}

	/**
	 * Run an asynchronous task under the lock described by the request: acquire it with
	 * {@link #acquireAsync(LockRequest)}, call the task with the lease, hold the lock until the
	 * task's stage completes, and release it then, on success, failure or cancellation.
	 * <p>
	 * The returned stage completes with the task's result, or exceptionally with the task's
	 * failure, with {@link LockAcquisitionException} if the lock was not acquired (the task did
	 * not run), or with {@link LockLostException} as soon as the lock is lost while the task
	 * runs (the task's stage is then cancelled). Cancelling the returned stage gives up the
	 * acquisition, or cancels the task's stage and releases the lock.
	 * @param <T> the task's result type
	 * @param request what to lock and for how long to wait
	 * @param task the work to run while holding the lock; must not block
	 * @return a stage completed with the task's result once the lock is released
	 */
	default <T> CompletionStage<T> executeLockedAsync(LockRequest request,
			Function<? super LockLease, ? extends CompletionStage<T>> task) {
		return LockedStage.run(acquireAsync(request), task);
	}

}

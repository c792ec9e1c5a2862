package io.distlock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One hold of a distributed lock, for try-with-resources.
 * <p>
 * A lease is valid from its grant until it is released or lost. It is lost when the watchdog's
 * renewal is refused (the key vanished or belongs to someone else), or when its validity deadline
 * passes without a successful renewal (the store is unreachable, or a fixed lease ran out while
 * the lock was still held). The holder is told exactly once: {@link #isValid()} turns false, the
 * {@link #onLost} callbacks run and {@link #release()} throws {@link LockLostException}.
 *
 * <pre class="code">
 * try (LockLease lease = registry.acquire("stock:42", Duration.ofSeconds(2))) {
 *     lease.onLost(lost -&gt; abortWork());
 *     jdbc.update("update product set stock = stock - 1, fence = ? where id = 42 and fence &lt; ?",
 *             lease.fencingToken(), lease.fencingToken());
 * }
 * </pre>
 */
public interface LockLease extends AutoCloseable {

	/**
	 * Return the key this lease holds.
	 * @return the key
	 */
	String key();

	/**
	 * Return the logical name the lock was requested under (a bounded label for metrics).
	 * @return the name
	 */
	String name();

	/**
	 * Return the fencing token of this grant: a number that is larger than the token of every
	 * earlier grant of the same key, so that a resource can reject a write from a stale holder by
	 * remembering the highest token it accepted. Reentrant holds share their grant's token.
	 * @return the fencing token, positive
	 */
	long fencingToken();

	/**
	 * Return whether the lease is still valid: neither released nor lost, and its validity
	 * deadline not passed.
	 * @return whether the holder may still rely on the lock
	 */
	boolean isValid();

	/**
	 * Return how long the lease stays valid if it is not renewed again; zero once it is no longer
	 * valid. Measured on the local monotonic clock with a margin for clock drift.
	 * @return the remaining validity
	 */
	Duration remaining();

	/**
	 * Ask the store whether it still holds this grant (one round trip). If it does not, the lease
	 * is declared lost at once: callbacks and listeners run, and {@link #isValid()} turns false.
	 * Used before committing work done under the lock, to close the window in which a loss is
	 * not yet known locally (until the next renewal).
	 * @return whether the grant is still held
	 */
	boolean confirm();

	/**
	 * Ask the store whether it still holds this grant, as {@link #confirm()} does, without
	 * waiting for the answer: for asynchronous code, such as a reactive transaction about to
	 * commit. The returned stage completes with {@code false} (and the lease is declared lost)
	 * if the store no longer holds the grant, and exceptionally if the store did not answer
	 * within the lease's remaining validity. It may complete on a thread of the driver or of
	 * distlock; its dependent stages must not block.
	 * <p>
	 * The default implementation calls {@link #confirm()} on the calling thread.
	 * @return a stage that completes with whether the grant is still held
	 */
	default CompletableFuture<Boolean> confirmAsync() {
		try {
			return CompletableFuture.completedFuture(confirm());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Extend a fixed lease: one owner-compared round trip that sets the key's lease to
	 * {@code leaseTime} from now (longer or shorter than what is left) and moves this lease's
	 * validity deadline with it, as ShedLock's {@code LockExtender} and Spring Integration's
	 * {@code renewLock} do. For locks taken with {@link LockRequest#leaseTime(Duration)} or
	 * {@link DistLock#tryLock(Duration, Duration)}, whose holder decides how long it needs. A
	 * lock without a fixed lease refuses it: the watchdog renews that lease to the registry's
	 * lease time while it is held, so an extension would not last, and a caller that believes it
	 * holds a fixed lease should learn that it does not. Reentrant holds share their grant, so
	 * extending one extends all.
	 * <p>
	 * On Redlock the extension counts only if a quorum of nodes still held the grant and
	 * answered before its validity deadline; a node that lost the key does not get it back, since
	 * a lease whose key is gone from a quorum is lost. The call waits for the store at most until
	 * the lease's validity deadline.
	 * <pre class="code">
	 * try (LockLease lease = registry.acquire(LockRequest.of("import").leaseTime(Duration.ofSeconds(30)))) {
	 *     while (importer.hasNextBatch()) {
	 *         if (!lease.extend(Duration.ofSeconds(30))) {
	 *             break; // lost: another holder may have the key already
	 *         }
	 *         importer.importNextBatch(lease.fencingToken());
	 *     }
	 * }
	 * </pre>
	 * @param leaseTime the new lease, from now, at least {@link LockRequest#MIN_LEASE_TIME}
	 * @return {@code true} if extended; {@code false} if the store no longer held the grant, in
	 * which case the lease is declared lost at once (callbacks and listeners run)
	 * @throws LockLostException if the lease was already known to be lost
	 * @throws IllegalStateException if the lease was released, or if it is renewed by the watchdog
	 * @throws IllegalArgumentException if {@code leaseTime} is shorter than the minimum
	 * @throws RuntimeException the store's failure, or a timeout if it did not answer before the
	 * validity deadline; the lease then stays as it was, and is declared lost at its deadline
	 * unless a later extension succeeds
	 */
	boolean extend(Duration leaseTime);

	/**
	 * Extend a fixed lease as {@link #extend(Duration)} does, without waiting for the store: for
	 * asynchronous code, which must not block. The returned stage completes with {@code true} if
	 * extended and {@code false} if the store no longer held the grant (the lease is then
	 * declared lost), or exceptionally with what {@code extend} throws. It may complete on a
	 * thread of the driver or of distlock, where {@link #onLost} callbacks then run too; its
	 * dependent stages must not block.
	 * <p>
	 * The default implementation calls {@link #extend(Duration)} on the calling thread.
	 * @param leaseTime the new lease, from now, at least {@link LockRequest#MIN_LEASE_TIME}
	 * @return a stage that completes when the extension is decided
	 */
	default CompletableFuture<Boolean> extendAsync(Duration leaseTime) {
		try {
			return CompletableFuture.completedFuture(extend(leaseTime));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Register a callback that runs once if the lock is lost while held. If it was already lost,
	 * the callback runs at once on the calling thread. Callbacks run on the registry's watchdog
	 * thread: keep them short and non-blocking. A callback's exception is logged and ignored.
	 * @param callback receives the exception that describes the loss
	 * @return this lease
	 */
	LockLease onLost(Consumer<? super LockLostException> callback);

	/**
	 * Release this hold. The lock itself is released when its outermost hold is. Releasing twice
	 * does nothing. A lease may be released from another thread than the one that acquired it.
	 * @throws LockLostException if the lock was lost while held: the protected data may have
	 * been changed concurrently
	 */
	void release();

	/**
	 * Release this hold, but if it is the outermost one and the lock was granted less than
	 * {@code holdAtLeast} ago, leave the key in the store (no longer renewed) until
	 * {@code holdAtLeast} after the grant. For scheduled jobs: a job that finishes fast still
	 * keeps other instances, whose clocks and schedules differ slightly, from running it again.
	 * @param holdAtLeast the minimum time the lock stays taken after its grant
	 * @throws LockLostException if the lock was lost while held
	 * @throws IllegalArgumentException if {@code holdAtLeast} is longer than the registry's
	 * {@link LockRegistryIntrospection#maxLeaseTime() longest lease}; the hold is then not
	 * released and stays held until released again
	 */
	void release(Duration holdAtLeast);

	/**
	 * Release this hold without waiting for the store, as {@link #release()} does otherwise. For
	 * asynchronous code, which must not block: the returned stage completes once the release is
	 * decided (the store answered, or did not within a short bound and the key is left to
	 * expire), exceptionally with {@link LockLostException} if the lock was lost while held. It
	 * may complete on a thread of the driver or of distlock; its dependent stages must not
	 * block. Releasing twice does nothing.
	 * <p>
	 * The default implementation calls {@link #release()} on the calling thread.
	 * @return a stage that completes when the release is decided
	 */
	default CompletableFuture<Void> releaseAsync() {
		try {
			release();
			return CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Release this hold without waiting for the store, but if it is the outermost one and the
	 * lock was granted less than {@code holdAtLeast} ago, leave the key in the store (no longer
	 * renewed) until {@code holdAtLeast} after the grant, as {@link #release(Duration)} does. The
	 * returned stage behaves as {@link #releaseAsync()}'s.
	 * <p>
	 * The default implementation calls {@link #release(Duration)} on the calling thread.
	 * @param holdAtLeast the minimum time the lock stays taken after its grant
	 * @return a stage that completes when the release is decided, or exceptionally with
	 * {@link IllegalArgumentException}, the hold not released, if {@code holdAtLeast} is longer
	 * than the registry's longest lease
	 */
	default CompletableFuture<Void> releaseAsync(Duration holdAtLeast) {
		try {
			release(holdAtLeast);
			return CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Release this hold, as {@link #release()}.
	 * @throws LockLostException if the lock was lost while held
	 */
	@Override
	default void close() {
		release();
	}

}

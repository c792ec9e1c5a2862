package io.distlock.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The SPI between the lock engine and the place where grants live. Every operation compares the
 * owner atomically: a store never releases or extends a grant that is not the caller's.
 * <p>
 * Every operation is asynchronous: it sends its request and returns a future without waiting
 * for the answer, and never blocks the calling thread (which may be a driver's event loop). The
 * future may complete on any thread, and its dependent stages must not block either. The engine
 * bounds every call by its caller's own deadline (what is left of a wait time, a lease's
 * validity, a short fixed bound for a release), so a store need not bound them itself; a
 * request still in flight when the engine stops waiting must stay harmless, which the owner
 * comparison guarantees.
 * <p>
 * The engine calls a store from at most one acquisition per key per registry at a time (the
 * local gate). A store implements this interface alone to work with the engine; what only some
 * stores can do is an optional sub-interface the engine looks for:
 * {@link LocalHandoffStore} lets the engine pass exclusive grants between threads of one process
 * without a round trip.
 */
public interface LockStore extends AutoCloseable {

	/**
	 * Check that the store can name a lock with the key, before anything is locked. The engine
	 * has already refused {@code null} and blank keys.
	 * @param key the user key
	 * @throws io.distlock.core.LockKeyException if this store cannot use the key
	 */
	default void checkKey(String key) {
	}

	/**
	 * Return whether the thread is one of the store's own: a driver's I/O thread (an event
	 * loop) that completes the store's futures, or a thread the store runs itself. The engine
	 * runs none of its users' code there (no body, no dependent stage of a future it hands out,
	 * no listener, no {@code onLost} callback): one blocking call in that code would stall every
	 * call on the driver's connection. The default says no thread is, for a store whose futures
	 * complete on threads that may block.
	 * @param thread the thread to classify
	 * @return whether user code must not run on it
	 */
	default boolean isIoThread(Thread thread) {
		return false;
	}

	/**
	 * Take the key for the owner if it is free, minting a fencing token larger than every
	 * earlier token of the key. If the key is taken and {@code waitTime} is positive, keep the
	 * waiter's place for that long (its fair queue place, a waiting writer's mark) and remember
	 * that someone waits, so that a release can notify (when the store notifies) and a
	 * checkpoint hands the key over. The engine sends it whatever the wait strategy, capped at
	 * twice the retry interval and refreshed by every attempt. An owner retries with the same
	 * owner value, so that a fair queue can recognise it.
	 * @param mode the kind of lock
	 * @param key the user key
	 * @param owner the unique owner of this grant
	 * @param leaseTime how long the grant lives unless renewed
	 * @param waitTime how much longer the caller may wait; zero when it will not wait
	 * @return whether the key was taken and, if not, how long the holder's grant still lives
	 */
	CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime);

	/**
	 * Release the key if the owner still holds it, notifying waiters if there are any.
	 * @param mode the kind of lock
	 * @param key the user key
	 * @param owner the owner of the grant
	 * @return {@code true} if the grant was the owner's and is now gone, {@code false} if it had
	 * already expired or been replaced
	 */
	CompletableFuture<Boolean> release(LockMode mode, String key, String owner);

	/**
	 * Try to take the read lock of a key whose write lock the same holder has (a downgrade, as
	 * {@code ReentrantReadWriteLock} allows): granted although the write lock is held, and
	 * whatever other holders wait for it. The read lock then outlives the release of the write
	 * lock.
	 * @param key the user key
	 * @param owner the owner of the read lock
	 * @param leaseTime the read lock's lease
	 * @param writeOwner the owner of the write lock the holder has
	 * @return the acquisition; not granted if the write lock is no longer {@code writeOwner}'s
	 */
	default CompletableFuture<Acquisition> tryAcquireReadUnderWrite(String key, String owner, Duration leaseTime,
			String writeOwner) {
		return CompletableFuture.failedFuture(
				new UnsupportedOperationException(getClass().getName() + " does not support read/write locks"));
	}

	/**
	 * Return how much longer than the caller's wait time an acquisition may take by design, such
	 * as the time replicas are given to acknowledge a grant: the engine waits that much longer
	 * for an attempt's answer.
	 * @return the allowance, zero by default
	 */
	default Duration acquireAllowance() {
		return Duration.ZERO;
	}

	/**
	 * Return whether the owner still holds the grant.
	 * @param grant the grant
	 * @return whether the store holds it now
	 */
	CompletableFuture<Boolean> isHeld(HeldKey grant);

	/**
	 * Extend the grants that their owners still hold.
	 * @param grants the grants to extend, in a stable order
	 * @param leaseTime the new lease of each grant, from now
	 * @return for each grant in order, whether it was still held and is now extended
	 */
	CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime);

	/**
	 * Extend one grant at its holder's request (a fixed lease), only if the owner still holds it,
	 * and never re-create it where it is gone, even where {@link #renew} would: a fixed lease
	 * whose key vanished is lost, and a key re-created for it would outlive the loss. The default
	 * renews the grant alone, which suits every store whose renewal never re-creates a key.
	 * @param grant the grant to extend
	 * @param leaseTime the new lease, from now
	 * @return whether the owner still held the grant and now holds it for the new lease
	 */
	default CompletableFuture<Boolean> extend(HeldKey grant, Duration leaseTime) {
		return renew(List.of(grant), leaseTime).thenApply((renewed) -> renewed[0]);
	}

	/**
	 * Start delivering release notifications of contended keys to the given consumer, if this
	 * store can. Called once, lazily, before the first wait; may be called again after it
	 * failed. The one blocking operation: the engine calls it on a thread of its own.
	 * @param releasedKeys receives the user key of every released key someone waits for
	 * @return whether notifications are now delivered
	 */
	boolean listen(Consumer<String> releasedKeys);

	/**
	 * Check that the store answers, for health checks.
	 * @return completes when the store answered, exceptionally with the store's exception if it
	 * failed
	 */
	CompletableFuture<Void> ping();

	/**
	 * Stop listening and free the store's resources. Grants already in the store stay until they
	 * expire.
	 */
	@Override
	void close();

	/**
	 * The answer to an acquisition attempt.
	 * @param acquired whether the key was taken for the caller
	 * @param fencingToken the new grant's token when acquired
	 * @param holderTtlMillis when not acquired, the milliseconds the current holder's grant
	 * still lives, or a negative number when unknown
	 */
	record Acquisition(boolean acquired, long fencingToken, long holderTtlMillis) {

		/**
		 * An acquisition that succeeded.
		 * @param fencingToken the new grant's token
		 * @return the acquisition
		 */
		public static Acquisition granted(long fencingToken) {
			return new Acquisition(true, fencingToken, -1);
		}

		/**
		 * An acquisition that found the key taken.
		 * @param holderTtlMillis the milliseconds the holder's grant still lives, or negative
		 * @return the acquisition
		 */
		public static Acquisition taken(long holderTtlMillis) {
			return new Acquisition(false, 0, holderTtlMillis);
		}

	}

	/**
	 * What became of a grant at its release (see {@link LocalHandoffStore}).
	 */
	enum Release {

		/** The grant had already expired or been replaced. */
		NOT_HELD,

		/** Released; nobody marked that they wait for the key. */
		RELEASED,

		/** Released, and some holder marked that it waits for the key (and was notified). */
		RELEASED_AWAITED,

		/** Kept for the owner with a new lease and token: nobody else waited. */
		KEPT

	}

	/**
	 * The answer to {@link LocalHandoffStore#keepUnlessAwaited(String, String, long, Duration)}.
	 * @param release what became of the grant
	 * @param fencingToken the new token when kept
	 */
	record Checkpoint(Release release, long fencingToken) {

		/**
		 * Return whether the grant was kept.
		 * @return whether the owner still holds it, with a new token
		 */
		public boolean kept() {
			return this.release == Release.KEPT;
		}

	}

	/**
	 * A key and the owner that holds it.
	 * @param mode the kind of lock
	 * @param key the user key
	 * @param owner the owner of the grant
	 */
	record HeldKey(LockMode mode, String key, String owner) {
	}

}

package io.distlock.core;

import java.time.Duration;

/**
 * Callbacks on the life of every grant a registry makes, for metrics and events. Every method
 * has a no-op default. Reentrant holds are not reported: only grants from the store and their
 * final release.
 * <p>
 * Implementations must be fast and must not throw: a registry logs and ignores a listener's
 * exception, so that observing a lock never changes what the lock does.
 */
public interface LockListener {

	/** A listener that does nothing. */
	LockListener NONE = new LockListener() {

		@Override
		public boolean isNonBlocking() {
			return true;
		}

	};

	/**
	 * A thread starts to acquire a lock it does not hold yet. Followed, on the same thread, by
	 * exactly one {@link #onAcquired} or {@link #onNotAcquired}.
	 * @param name the logical name the lock is requested under
	 * @param key the key
	 */
	default void onAcquiring(String name, String key) {
	}

	/**
	 * An acquisition that no thread waits for starts ({@link LockRegistry#acquireAsync}, and the
	 * reactive holds built on it), on the thread that asked for it. Its outcome is decided later,
	 * usually on another thread (the request's executor or the registry's continuation pool,
	 * never the driver's event loop), and told to the returned {@link Acquisition}.
	 * <p>
	 * The default returns an {@code Acquisition} that, once the outcome is known and on the
	 * thread that decides it, calls {@link #onAcquiring} and then {@link #onAcquired} or
	 * {@link #onNotAcquired}, so that a listener written for blocking acquisitions sees them on
	 * one thread as it expects. Such a listener should take the wait from {@code waited}, not
	 * measure it between the two calls. Override this method to follow the acquisition from its
	 * start, as the observation listener does.
	 * @param name the logical name the lock is requested under
	 * @param key the key
	 * @return what to tell of the outcome, exactly once
	 */
	default Acquisition onAsyncAcquiring(String name, String key) {
		return new Acquisition() {

			@Override
			public void acquired(LockLease lease, Duration waited) {
				onAcquiring(name, key);
				onAcquired(lease, waited);
			}

			@Override
			public void notAcquired(Duration waited, Throwable failure) {
				onAcquiring(name, key);
				onNotAcquired(name, key, waited, failure);
			}

		};
	}

	/**
	 * The store granted the lock.
	 * @param lease the new lease
	 * @param waited how long the acquisition took, waiting included
	 */
	default void onAcquired(LockLease lease, Duration waited) {
	}

	/**
	 * The lock was not acquired: the wait time passed, the wait was interrupted, or the store
	 * failed.
	 * @param name the logical name the lock was requested under
	 * @param key the key
	 * @param waited how long the attempt took
	 * @param failure the store's exception, or {@code null} when the lock simply stayed taken
	 */
	default void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
	}

	/**
	 * The lock was released by its holder. Within one registry, the next holder of an exclusive
	 * or write lock is told {@link #onAcquired} only once this call has returned, unless this
	 * holder had lost the lock (then the next one may be told first). So this method must not
	 * take the lock it is told about: that acquisition would queue behind a next holder that is
	 * let in only when this call returns.
	 * @param lease the released lease
	 * @param held how long the lock was held
	 * @param outcome what the release found in the store
	 */
	default void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
	}

	/**
	 * The watchdog extended the lease.
	 * @param lease the renewed lease
	 */
	default void onRenewed(LockLease lease) {
	}

	/**
	 * A renewal attempt failed with an error; the watchdog retries until the lease's validity
	 * deadline.
	 * @param lease the lease
	 * @param failure the store's exception
	 */
	default void onRenewalFailed(LockLease lease, Throwable failure) {
	}

	/**
	 * The lock was lost while held.
	 * @param lease the lost lease
	 * @param reason the exception that describes the loss, as given to the holder
	 */
	default void onLost(LockLease lease, LockLostException reason) {
	}

	/**
	 * Return whether distlock may call this listener on the lock store's I/O threads (the Redis
	 * driver's event loops), where a grant or a release is finished: its methods never block and
	 * run no application code, as a meter's increment. A listener that says no (the default) is
	 * called elsewhere: on the caller's thread, or on the hold's executor, which costs a thread
	 * hand-off per asynchronous grant and release. {@link #onLost} is never called on those
	 * threads, whatever this says.
	 * @return whether the listener may run on the store's I/O threads
	 */
	default boolean isNonBlocking() {
		return false;
	}

	/**
	 * A write was refused where the data is written because the holder's fencing token was
	 * older than one the resource had seen (the {@code io.distlock.fencing} helpers). Called on
	 * the writing thread, before the exception is thrown.
	 * @param lease the stale holder's lease
	 * @param rejection the exception the writer gets
	 */
	default void onFencingRejected(LockLease lease, StaleFencingTokenException rejection) {
	}

	/**
	 * An annotated method whose lock was not acquired was skipped or replaced by its fallback.
	 * @param name the lock's logical name
	 * @param action {@code skip} or {@code fallback}
	 */
	default void onFallback(String name, String action) {
	}

	/**
	 * The outcome of one acquisition that no thread waits for
	 * ({@link LockListener#onAsyncAcquiring}): exactly one of its methods is called, once, on the
	 * thread that decides the outcome.
	 */
	interface Acquisition {

		/**
		 * The store granted the lock.
		 * @param lease the new lease
		 * @param waited how long the acquisition took, waiting included
		 */
		void acquired(LockLease lease, Duration waited);

		/**
		 * The lock was not acquired: the wait time passed, the acquisition was cancelled, or the
		 * store failed.
		 * @param waited how long the attempt took
		 * @param failure the store's exception, or {@code null} when the lock simply stayed taken
		 */
		void notAcquired(Duration waited, Throwable failure);

	}

	/**
	 * What the store found when a lock was released.
	 */
	enum ReleaseOutcome {

		/** The lock was still ours and is now free. */
		RELEASED,

		/** The lock had already been lost: expired, deleted or taken by another holder. */
		LOST,

		/** The store could not be reached; the lock frees itself when its lease expires. */
		FAILED

	}

}

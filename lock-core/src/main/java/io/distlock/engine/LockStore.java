package io.distlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The SPI between the lock engine and the place where grants live. Every operation compares the
 * owner atomically: a store never releases or extends a grant that is not the caller's.
 * <p>
 * The engine calls a store from at most one thread per key per registry at a time (the local
 * gate), and renews from the watchdog's I/O thread.
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
	 * Take the key for the owner if it is free, minting a fencing token larger than every
	 * earlier token of the key. If the key is taken and {@code waitTime} is positive, remember
	 * that someone waits, so that a release notifies. An owner retries with the same owner value,
	 * so that a fair queue can recognise it.
	 * @param mode the kind of lock
	 * @param key the user key
	 * @param owner the unique owner of this grant
	 * @param leaseTime how long the grant lives unless renewed
	 * @param waitTime how much longer the caller may wait; zero when it will not wait
	 * @return whether the key was taken and, if not, how long the holder's grant still lives
	 */
	Acquisition tryAcquire(LockMode mode, String key, String owner, Duration leaseTime, Duration waitTime);

	/**
	 * Release the key if the owner still holds it, notifying waiters if there are any.
	 * @param mode the kind of lock
	 * @param key the user key
	 * @param owner the owner of the grant
	 * @return {@code true} if the grant was the owner's and is now gone, {@code false} if it had
	 * already expired or been replaced
	 */
	boolean release(LockMode mode, String key, String owner);

	/**
	 * Return whether the owner still holds the grant.
	 * @param grant the grant
	 * @return whether the store holds it now
	 */
	boolean isHeld(HeldKey grant);

	/**
	 * Extend the grants that their owners still hold.
	 * @param grants the grants to extend, in a stable order
	 * @param leaseTime the new lease of each grant, from now
	 * @return for each grant in order, whether it was still held and is now extended
	 */
	boolean[] renew(List<HeldKey> grants, Duration leaseTime);

	/**
	 * Start delivering release notifications of contended keys to the given consumer, if this
	 * store can. Called once, lazily, before the first wait; may be called again after it
	 * failed.
	 * @param releasedKeys receives the user key of every released key someone waits for
	 * @return whether notifications are now delivered
	 */
	boolean listen(Consumer<String> releasedKeys);

	/**
	 * Check that the store answers, for health checks.
	 * @throws RuntimeException the store's exception if it does not
	 */
	void ping();

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
	 * A key and the owner that holds it.
	 * @param mode the kind of lock
	 * @param key the user key
	 * @param owner the owner of the grant
	 */
	record HeldKey(LockMode mode, String key, String owner) {
	}

}

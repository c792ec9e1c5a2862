package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockRequest;

import io.distlock.store.LockMode;

/**
 * One request for a hold, as the engine sees it, and the one place that words why it was not
 * granted.
 *
 * @param mode the kind of lock
 * @param key the user key
 * @param name the logical name
 * @param waitNanos how long to wait; 0 tries once; {@link #WAIT_FOREVER} never gives up
 * @param fixedLease the fixed lease, or {@code null} for the watchdog
 * @param holder who owns the hold once granted
 * @param waiter who waits for the grant, and what an interrupt does to the wait
 * @param executor where the hold's asynchronous continuations run when the thread that completes
 * them must not run user code; {@code null} for the registry's default
 */
record HoldRequest(LockMode mode, String key, String name, long waitNanos, Duration fixedLease, Holder holder,
		Waiter waiter, Executor executor) {

	/** A wait without a deadline, for {@code lock()} and {@code lockInterruptibly()}. */
	static final long WAIT_FOREVER = Long.MAX_VALUE;

	/** How long one attempt of a wait without a deadline waits for the store. */
	private static final Duration FOREVER_ATTEMPT = Duration.ofSeconds(60);

	/**
	 * Return the engine's request for a {@link LockRequest}, which checked its key already: the
	 * registry's key limit applies, and the lease is checked against the registry's settings. The
	 * store's own key rule is the caller's to check.
	 */
	static HoldRequest of(LockRequest request, Waiter waiter, RegistrySettings settings) {
		String key = settings.keyLimit().apply(request.key());
		if (request.leaseTime() != null) {
			settings.requireGrantable(request.leaseTime(), "leaseTime");
		}
		// An asynchronous hold is owned by its lease: never re-entered by a thread, released by
		// whoever holds the lease.
		Holder holder = (waiter != Waiter.CONTINUATION && request.ownedByThread()) ? Holder.THREAD : Holder.LEASE;
		return new HoldRequest(request.fair() ? LockMode.FAIR : LockMode.EXCLUSIVE, key, request.name(),
				waitNanos(request.waitTime()), request.leaseTime(), holder, waiter, request.executor());
	}

	boolean forever() {
		return this.waitNanos == WAIT_FOREVER;
	}

	/**
	 * Return a wait time in nanoseconds for a request with a deadline: at most
	 * {@link LockRequest#MAX_WAIT_TIME} (some 146 years), so that every deadline and bound
	 * derived from it, with the slack added to an attempt's bound, is far from overflowing.
	 */
	static long waitNanos(Duration waitTime) {
		return LockRequest.boundedWait(waitTime).toNanos();
	}

	/**
	 * Return how long one store attempt may take: the wait time bounds the store's answer too, so
	 * a store that hangs fails the caller when its wait is over, not when the driver gives up.
	 * @param storeAllowance what the store adds to an attempt (see
	 * {@link io.distlock.store.LockStore#acquireAllowance()})
	 */
	Duration attemptBound(long remainingNanos, Duration storeAllowance) {
		return forever() ? FOREVER_ATTEMPT
				: Duration.ofNanos(Math.max(0, remainingNanos)).plus(StoreCalls.ATTEMPT_SLACK).plus(storeAllowance);
	}

	boolean ownedByThread() {
		return this.holder == Holder.THREAD;
	}

	long remainingNanos(long startNanos, long now) {
		return forever() ? WAIT_FOREVER : this.waitNanos - (now - startNanos);
	}

	/**
	 * Return the failure of a request whose key stayed taken for its whole wait.
	 */
	LockAcquisitionException notAcquired() {
		return new LockAcquisitionException(this.key, "Could not acquire lock for key '" + this.key + "' within "
				+ TimeUnit.NANOSECONDS.toMillis(this.waitNanos) + "ms", null);
	}

	/**
	 * Return the failure of a request whose store call failed.
	 */
	LockAcquisitionException storeFailed(Throwable cause) {
		return new LockAcquisitionException(this.key, "Could not acquire lock for key '" + this.key
				+ "': the lock store failed: " + cause.getMessage(), cause);
	}

	/**
	 * Return the failure of a request whose waiting thread was interrupted.
	 */
	LockAcquisitionException interrupted(InterruptedException cause) {
		return new LockAcquisitionException(this.key, "Interrupted while waiting for lock for key '" + this.key + "'",
				cause);
	}

	/** Who owns a hold once it is granted. */
	enum Holder {

		/** The calling thread: it may re-enter the hold, and {@code unlock()} finds it. */
		THREAD,

		/** Its lease alone: released by whoever holds the lease, never re-entered. */
		LEASE

	}

	/** Who waits for the grant. */
	enum Waiter {

		/** The calling thread, and an interrupt ends its wait. */
		INTERRUPTIBLE_THREAD,

		/** The calling thread, which keeps waiting when interrupted and keeps the interrupt. */
		UNINTERRUPTIBLE_THREAD,

		/**
		 * No thread: asynchronous code continues from the grant, so that continuations must not
		 * nest one holder inside the previous one.
		 */
		CONTINUATION

	}

	/**
	 * Return the local identity of a hold, the key of its {@link Gate}. Exclusive and write
	 * locks have one gate per key, so that threads of this process queue locally and only one of
	 * them talks to the store. Readers and fair waiters have one gate per thread: readers so that
	 * they do not exclude each other, fair waiters so that each takes its own place in the store's
	 * queue the moment it arrives.
	 * <p>
	 * Identities never collide across keys or kinds of lock, whatever characters a key holds: the
	 * other kinds begin with a NUL character and a name of their kind, and end with the holder
	 * (which holds no NUL), and an exclusive key that begins with NUL gets a name of its own too,
	 * so a key that spells another lock's identity is still its own lock. Any other exclusive key
	 * is its own identity, at no cost.
	 * @param holder the owning thread, or {@code null} for a hold no thread owns
	 */
	static String gateKey(LockMode mode, String key, Thread holder, long uniqueId) {
		return switch (mode) {
			case EXCLUSIVE -> (key.charAt(0) != '\u0000') ? key : "\u0000exclusive\u0000" + key;
			case WRITE -> "\u0000write\u0000" + key;
			case FAIR -> "\u0000fair\u0000" + key + perHolder(holder, uniqueId);
			case READ -> "\u0000read\u0000" + key + perHolder(holder, uniqueId);
		};
	}

	private static String perHolder(Thread holder, long uniqueId) {
		return "\u0000" + ((holder != null) ? "thread-" + holder.getId() : "hold-" + uniqueId);
	}

}

package io.distlock.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * An immutable description of one lock acquisition: the key, how long to wait and, optionally, a
 * fixed lease time.
 * <p>
 * Without a lease time the registry's default lease applies and the watchdog renews it for as
 * long as the lock is held. With a lease time the lock expires after it, held or not, and the
 * holder is told that it was lost if it still held it then.
 *
 * <pre class="code">
 * LockRequest.of("report:daily").waitTime(Duration.ZERO).leaseTime(Duration.ofMinutes(5))
 * </pre>
 */
public final class LockRequest {

	/** The name of a lock taken without one: metrics and the endpoint group such locks under it. */
	public static final String DEFAULT_NAME = "unnamed";

	/**
	 * The shortest lease a lock can be granted with: 10ms. Redis expires keys to the millisecond,
	 * and the holder counts a lease as valid only until its drift margin (1% of the lease plus
	 * 2ms) before the end, measured from when it sent the request. At 10ms the margin is 2.1ms and
	 * 7.9ms of validity are left, enough for the reply of a loopback or LAN round trip to arrive
	 * with time to spare; a lease at or below the margin (1 or 2ms) would leave none once the reply
	 * arrives, and the acquisition would be refused or, with {@code lock()}, retried forever.
	 * Refused where it is given: here, by {@code LockLease.extend}, by the registry builders
	 * (whose watchdog lease must also allow renewals every 10ms or more), and at startup on the
	 * {@code @DistributedLock} attributes and {@code distlock.*} properties.
	 */
	public static final Duration MIN_LEASE_TIME = Duration.ofMillis(10);

	/**
	 * The longest wait a request counts, some 146 years: a longer one, such as
	 * {@code Duration.ofDays(Long.MAX_VALUE)}, waits this long instead of overflowing a deadline.
	 */
	public static final Duration MAX_WAIT_TIME = Duration.ofNanos(Long.MAX_VALUE / 2);

	private final String key;

	private final String name;

	private final Duration waitTime;

	private final Duration leaseTime;

	private final boolean ownedByThread;

	private final boolean fair;

	private final Executor executor;

	private LockRequest(String key, String name, Duration waitTime, Duration leaseTime, boolean ownedByThread,
			boolean fair, Executor executor) {
		this.key = key;
		this.name = name;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.ownedByThread = ownedByThread;
		this.fair = fair;
		this.executor = executor;
	}

	/**
	 * Create a request for the given key that tries once (no wait) with the default lease.
	 * @param key the key to lock, neither {@code null} nor blank
	 * @return the request
	 * @throws LockKeyException if the key is {@code null} or blank
	 */
	public static LockRequest of(String key) {
		return new LockRequest(requireUsable(key), DEFAULT_NAME, Duration.ZERO, null, true, false, null);
	}

	/**
	 * Return a copy of this request that waits at most the given time for the lock.
	 * @param waitTime the maximum wait, zero or positive; longer than {@link #MAX_WAIT_TIME}
	 * waits that long
	 * @return a new request
	 */
	public LockRequest waitTime(Duration waitTime) {
		Objects.requireNonNull(waitTime, "waitTime must not be null");
		if (waitTime.isNegative()) {
			throw new IllegalArgumentException("waitTime must not be negative but was '" + waitTime + "'");
		}
		return new LockRequest(this.key, this.name, boundedWait(waitTime), this.leaseTime, this.ownedByThread,
				this.fair, this.executor);
	}

	/**
	 * Return a copy of this request with a fixed lease time: the lock expires after it and is not
	 * renewed. {@code null} restores the default lease with watchdog renewal.
	 * @param leaseTime the fixed lease, at least {@link #MIN_LEASE_TIME}, or {@code null}
	 * @return a new request
	 * @throws IllegalArgumentException if the lease is shorter than {@link #MIN_LEASE_TIME}
	 */
	public LockRequest leaseTime(Duration leaseTime) {
		if (leaseTime != null) {
			requireMinLease(leaseTime, "leaseTime");
		}
		return new LockRequest(this.key, this.name, this.waitTime, leaseTime, this.ownedByThread,
				this.fair, this.executor);
	}

	/**
	 * Return a copy of this request with a logical name: a bounded label for metrics and the
	 * endpoint, such as {@code InventoryService.reserve}, never the key itself.
	 * @param name the name, not blank
	 * @return a new request
	 */
	public LockRequest name(String name) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("name must not be blank but was '" + name + "'");
		}
		return new LockRequest(this.key, name, this.waitTime, this.leaseTime, this.ownedByThread,
				this.fair, this.executor);
	}

	/**
	 * Return the logical name of the lock.
	 * @return the name, {@value #DEFAULT_NAME} unless set
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return a copy of this request whose lease does not belong to the calling thread: the
	 * thread cannot re-enter it (a second acquisition from it waits like any other), and any
	 * thread may release it. For work that continues asynchronously after the call returns.
	 * @param ownedByThread whether the calling thread owns the hold (default {@code true})
	 * @return a new request
	 */
	public LockRequest ownedByThread(boolean ownedByThread) {
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, ownedByThread,
				this.fair, this.executor);
	}

	/**
	 * Return a copy of this request for a fair lock: waiters are served in arrival order (see
	 * {@link LockRegistry#obtainFair(String)}).
	 * @param fair whether the lock is fair (default {@code false})
	 * @return a new request
	 */
	public LockRequest fair(boolean fair) {
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, this.ownedByThread,
				fair, this.executor);
	}

	/**
	 * Return a copy of this request whose asynchronous continuations run on the given executor:
	 * the completion of {@link LockRegistry#acquireAsync} (and so the task of
	 * {@link LockRegistry#executeLockedAsync}), of the lease's {@code releaseAsync},
	 * {@code confirmAsync} and {@code extendAsync}, and its {@code onLost} callbacks, whenever
	 * the thread that would complete them is the lock store's (the Redis driver's event loop) or
	 * the registry's own. On any other thread they run where they are completed, as
	 * {@link java.util.concurrent.CompletableFuture} runs its dependents. Without one, the
	 * registry's own fork/join pool runs them (one thread per core, and one more while a
	 * continuation waits for another future); pass an executor of your own for continuations
	 * that block on I/O. The executor must run each task on a thread of its own choosing, never
	 * on the calling thread. Blocking calls ignore it: their code continues on the calling
	 * thread.
	 * @param executor the executor, or {@code null} for the registry's default
	 * @return a new request
	 */
	public LockRequest executor(Executor executor) {
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, this.ownedByThread, this.fair,
				executor);
	}

	/**
	 * Return where this request's asynchronous continuations run when the thread that completes
	 * them is not one for user code (see {@link #executor(Executor)}).
	 * @return the executor, or {@code null} for the registry's default
	 */
	public Executor executor() {
		return this.executor;
	}

	/**
	 * Return whether waiters are served in arrival order.
	 * @return whether the lock is fair
	 */
	public boolean fair() {
		return this.fair;
	}

	/**
	 * Return whether the calling thread owns the hold and may re-enter it.
	 * @return whether the hold is thread-owned
	 */
	public boolean ownedByThread() {
		return this.ownedByThread;
	}

	/**
	 * Return the key to lock.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Return the maximum time to wait for the lock.
	 * @return the wait time, zero to try once
	 */
	public Duration waitTime() {
		return this.waitTime;
	}

	/**
	 * Return the fixed lease time, or {@code null} for the registry's default lease renewed by
	 * the watchdog.
	 * @return the lease time or {@code null}
	 */
	public Duration leaseTime() {
		return this.leaseTime;
	}

	/**
	 * Return a wait time as a request counts it: at most {@link #MAX_WAIT_TIME}.
	 * @param waitTime the wait time
	 * @return the wait time, or {@link #MAX_WAIT_TIME} if it is longer
	 */
	public static Duration boundedWait(Duration waitTime) {
		return (waitTime.compareTo(MAX_WAIT_TIME) > 0) ? MAX_WAIT_TIME : waitTime;
	}

	/**
	 * Refuse a lease shorter than {@link #MIN_LEASE_TIME}.
	 * @param leaseTime the lease
	 * @param what what the lease is called where it was given, for the message
	 * @return the lease
	 * @throws IllegalArgumentException if it is shorter
	 */
	public static Duration requireMinLease(Duration leaseTime, String what) {
		Objects.requireNonNull(leaseTime, () -> what + " must not be null");
		if (leaseTime.compareTo(MIN_LEASE_TIME) < 0) {
			throw new IllegalArgumentException(what + " must be at least " + MIN_LEASE_TIME.toMillis() + "ms but was '"
					+ leaseTime + "': Redis expires keys to the millisecond and a holder keeps back a drift margin"
					+ " of 1% plus 2ms, so a shorter lease leaves too little validity to be granted");
		}
		return leaseTime;
	}

	@Override
	public String toString() {
		return "LockRequest[name='" + this.name + "', key='" + this.key + "', waitTime=" + this.waitTime + ", leaseTime="
				+ ((this.leaseTime != null) ? this.leaseTime : "watchdog") + "]";
	}

	private static String requireUsable(String key) {
		if (key == null) {
			throw new LockKeyException("Lock key must not be null");
		}
		if (key.isBlank()) {
			throw new LockKeyException("Lock key must not be blank but was '" + key + "'");
		}
		for (int i = 0; i < key.length(); i++) {
			if (Character.isHighSurrogate(key.charAt(i)) && i + 1 < key.length()
					&& Character.isLowSurrogate(key.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(key.charAt(i))) {
				// UTF-8 has no form for it: Redis would get '?' in its place, so keys that differ only
				// there would be one lock in Redis and several in the process.
				throw new LockKeyException("Lock key must be valid Unicode but has an unpaired surrogate at index " + i
						+ " (a string cut inside a character?): '" + key + "'");
			}
		}
		return key;
	}

}

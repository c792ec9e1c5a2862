package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The local gate of one key: only the thread that passes it talks to the store for that key;
 * the other threads of this process queue on it in arrival order. The gate stays closed while
 * the key is held, so reentrancy and handoffs between local threads cost no round trip.
 * <p>
 * A semaphore rather than a {@code ReentrantLock}, so that a lease may be released from another
 * thread than the one that acquired it (asynchronous methods).
 */
final class Gate {

	/** The local identity: a key and mode, or one reader's hold. */
	private final String gateKey;

	/** The key in the store, shared by every gate of the same user key. */
	private final String key;

	private final LockMode mode;

	/** Guarded by the {@link KeyGates} map's bin lock. */
	int references;

	private final Semaphore permit = new Semaphore(1, true);

	/** Wakes the one thread of this process that waits for the store to release the key. */
	private final Semaphore releaseSignal = new Semaphore(0);

	private volatile Thread owner;

	private volatile Grant grant;

	/** Holds taken through {@code DistLock.lock()}, touched only by the owner thread. */
	private final Deque<HeldLease> lockHolds = new ArrayDeque<>();

	Gate(String gateKey, String key, LockMode mode) {
		this.gateKey = gateKey;
		this.key = key;
		this.mode = mode;
	}

	String gateKey() {
		return this.gateKey;
	}

	String key() {
		return this.key;
	}

	LockMode mode() {
		return this.mode;
	}

	boolean tryEnter() {
		return this.permit.tryAcquire();
	}

	boolean tryEnter(long timeoutNanos) throws InterruptedException {
		return this.permit.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
	}

	void enterUninterruptibly() {
		this.permit.acquireUninterruptibly();
	}

	void enterInterruptibly() throws InterruptedException {
		this.permit.acquire();
	}

	void occupy(Thread owner, Grant grant) {
		this.owner = owner;
		this.grant = grant;
	}

	void leave() {
		this.owner = null;
		this.grant = null;
		this.permit.release();
	}

	Thread owner() {
		return this.owner;
	}

	Grant grant() {
		return this.grant;
	}

	Deque<HeldLease> lockHolds() {
		return this.lockHolds;
	}

	void signalReleased() {
		// At most one pending signal: a burst of notifications wakes the waiter once.
		if (this.releaseSignal.availablePermits() == 0) {
			this.releaseSignal.release();
		}
	}

	void clearReleaseSignals() {
		this.releaseSignal.drainPermits();
	}

	/**
	 * Wait for a release notification or the timeout.
	 * @return whether a notification arrived
	 */
	boolean awaitRelease(long timeoutNanos) throws InterruptedException {
		return this.releaseSignal.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
	}

}

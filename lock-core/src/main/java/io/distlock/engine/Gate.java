package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The local gate of one key: only the thread that passes it talks to the store for that key;
 * the other threads of this process queue on it in arrival order. The gate stays closed while
 * the key is held, so reentrancy costs no round trip.
 * <p>
 * Whoever leaves the gate admits the first waiter directly, so a waiter that is admitted can no
 * longer time out: that is what lets a leaving holder hand its grant to the next waiter
 * ({@link #handOff(Grant)}) knowing that somebody takes it. The gate is not bound to a thread,
 * so a lease may be released from another thread than the one that acquired it (asynchronous
 * methods).
 */
final class Gate {

	/** The local identity: a key and mode, or one reader's hold. */
	private final String gateKey;

	/** The key in the store, shared by every gate of the same user key. */
	private final String key;

	private final LockMode mode;

	/** Guarded by the {@link KeyGates} map's bin lock. */
	int references;

	/** Guards the fields below it; never held around I/O or while parked. */
	private final ReentrantLock lock = new ReentrantLock();

	private final Deque<Waiter> waiters = new ArrayDeque<>();

	private boolean occupied;

	/** The grant the last holder handed to the thread it admitted, until that thread takes it. */
	private Grant handedOff;

	/** How long the admitted thread should let other processes go first, in nanoseconds. */
	private long yieldNanos;

	/** Wakes the one thread of this process that waits for the store to release the key. */
	private final Semaphore releaseSignal = new Semaphore(0);

	private volatile Grant grant;

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

	/**
	 * Pass the gate if nobody holds it or waits for it, without waiting.
	 */
	boolean tryEnter() {
		this.lock.lock();
		try {
			if (this.occupied) {
				return false;
			}
			this.occupied = true;
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Pass the gate, waiting in arrival order behind the threads already waiting.
	 * @param timeoutNanos the longest wait, ignored when {@code forever}
	 * @param forever whether to wait without a deadline
	 * @param interruptible whether an interrupt ends the wait; an interrupt that comes after the
	 * thread was admitted is kept in its interrupt flag instead
	 * @param acceptsHandoff whether the caller can take a grant handed over by the last holder
	 * @return whether the gate was passed, {@code false} when the wait ran out first
	 * @throws InterruptedException if interrupted before being admitted
	 */
	boolean enter(long timeoutNanos, boolean forever, boolean interruptible, boolean acceptsHandoff)
			throws InterruptedException {
		Waiter waiter;
		this.lock.lock();
		try {
			if (!this.occupied) {
				this.occupied = true;
				return true;
			}
			if (!forever && timeoutNanos <= 0) {
				return false;
			}
			waiter = new Waiter(Thread.currentThread(), acceptsHandoff);
			this.waiters.addLast(waiter);
		}
		finally {
			this.lock.unlock();
		}
		long deadline = System.nanoTime() + timeoutNanos;
		boolean interrupted = false;
		while (!waiter.admitted) {
			if (forever) {
				LockSupport.park(this);
			}
			else {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					if (cancel(waiter)) {
						restoreInterrupt(interrupted);
						return false;
					}
					break;
				}
				LockSupport.parkNanos(this, left);
			}
			if (Thread.interrupted()) {
				interrupted = true;
				if (interruptible && cancel(waiter)) {
					throw new InterruptedException();
				}
			}
		}
		restoreInterrupt(interrupted);
		return true;
	}

	/**
	 * Leave the gate and admit the next waiter, if any, to try the store itself.
	 */
	void leave() {
		admitNext(null, 0, null);
	}

	/**
	 * Leave the gate; the next waiter, if any, lets other processes try first for the given
	 * time before it asks the store.
	 * @param yieldNanos how long the next waiter holds back
	 */
	void leaveYielding(long yieldNanos) {
		admitNext(null, yieldNanos, null);
	}

	/**
	 * Leave the gate by handing a grant, still held in the store, to the first waiter, if that
	 * waiter can take one.
	 * @param grant the grant to hand over
	 * @return whether a waiter was admitted with it; if not, the caller still holds the gate
	 */
	boolean handOff(Grant grant) {
		return admitNext(grant, 0, null);
	}

	/**
	 * Return whether the first waiter can take a handed-over grant.
	 */
	boolean hasWaiterAcceptingHandoff() {
		this.lock.lock();
		try {
			Waiter next = this.waiters.peekFirst();
			return next != null && next.acceptsHandoff;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Take the grant handed to this thread when it was admitted.
	 * @return the grant, or {@code null} if the last holder released it in the store
	 */
	Grant takeHandedOff() {
		this.lock.lock();
		try {
			Grant taken = this.handedOff;
			this.handedOff = null;
			return taken;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Take how long this thread, just admitted, should let other processes try first.
	 * @return nanoseconds, 0 for none
	 */
	long takeYieldNanos() {
		this.lock.lock();
		try {
			long taken = this.yieldNanos;
			this.yieldNanos = 0;
			return taken;
		}
		finally {
			this.lock.unlock();
		}
	}

	void occupy(Grant grant) {
		this.grant = grant;
	}

	Grant grant() {
		return this.grant;
	}

	/**
	 * Leave the gate on behalf of a grant that was lost while held, if it still occupies it: the
	 * next waiter of this process goes to the store as waiters of other processes do, instead of
	 * queueing behind a holder whose lease is gone. The lost grant's own release later leaves
	 * the gate alone.
	 * @param lost the grant that was lost
	 */
	void vacate(Grant lost) {
		admitNext(null, 0, lost);
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

	/**
	 * Admit the first waiter, or open the gate if there is none. With a grant to hand over,
	 * admit only a waiter that can take it, and otherwise change nothing.
	 * @param handOff the grant to hand over, or {@code null}
	 * @param yield how long the admitted waiter lets other processes go first
	 * @param expectedOccupant the grant that must still occupy the gate for anything to change,
	 * or {@code null} when the caller is known to occupy it
	 * @return whether a waiter was admitted
	 */
	private boolean admitNext(Grant handOff, long yield, Grant expectedOccupant) {
		Waiter next;
		this.lock.lock();
		try {
			if (expectedOccupant != null && this.grant != expectedOccupant) {
				return false;
			}
			next = this.waiters.peekFirst();
			if (handOff != null && (next == null || !next.acceptsHandoff)) {
				return false;
			}
			this.grant = null;
			if (next == null) {
				this.occupied = false;
				return false;
			}
			this.waiters.pollFirst();
			this.handedOff = handOff;
			this.yieldNanos = yield;
			next.admitted = true;
		}
		finally {
			this.lock.unlock();
		}
		LockSupport.unpark(next.thread);
		return true;
	}

	/**
	 * Withdraw a waiter that gives up.
	 * @return {@code true} if withdrawn, {@code false} if it was admitted meanwhile and holds the
	 * gate now
	 */
	private boolean cancel(Waiter waiter) {
		this.lock.lock();
		try {
			if (waiter.admitted) {
				return false;
			}
			this.waiters.remove(waiter);
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	private static void restoreInterrupt(boolean interrupted) {
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/** One thread waiting to pass the gate. */
	private static final class Waiter {

		final Thread thread;

		final boolean acceptsHandoff;

		/** Written under the gate's lock, read by the waiter while it parks. */
		volatile boolean admitted;

		Waiter(Thread thread, boolean acceptsHandoff) {
			this.thread = thread;
			this.acceptsHandoff = acceptsHandoff;
		}

	}

}

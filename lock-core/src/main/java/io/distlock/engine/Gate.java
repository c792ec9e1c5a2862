package io.distlock.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

import io.distlock.store.LockMode;

/**
 * The local gate of one key, the one owner of that key's local state: its queue, the grant held
 * under it, and whether a grant may pass to the next waiter. Only the acquisition that passes it
 * talks to the store for that key; the other acquisitions of this process queue on it in arrival
 * order. The gate stays closed while the key is held, so reentrancy costs no round trip. Gates
 * are made, found and dropped by their registry's {@link Table} only.
 * <p>
 * A waiter is a future, not a parked thread: whoever leaves the gate completes the first
 * waiter's future with its {@link Admission}, so a waiter that is admitted can no longer time
 * out. That is what lets a leaving holder hand its grant to the next waiter
 * ({@link #pickForHandOff(Grant)}) knowing that somebody takes it. Picking the next waiter and
 * admitting it are two steps ({@link Successor}), so that a holder finishes its release, and
 * its listener hears of it, before the next holder can start. The gate is bound to no thread: a
 * lease may be released from another thread than the one that acquired it.
 */
final class Gate {

	/** The local identity: a key and mode, or one reader's hold (see {@link HoldRequest#gateKey}). */
	private final String gateKey;

	/** How many holds and waits use this gate; guarded by the {@link Table} map's bin lock. */
	private int references;

	/** Guards the fields below it; never held around I/O or while completing a future. */
	private final ReentrantLock lock = new ReentrantLock();

	private final Deque<GateWaiter> waiters = new ArrayDeque<>();

	private boolean occupied;

	/** The grant held under this gate, if any. */
	private volatile HeldGrant occupant;

	private Gate(String gateKey) {
		this.gateKey = gateKey;
	}

	String gateKey() {
		return this.gateKey;
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
	 * Queue for the gate behind the acquisitions already waiting, or pass it at once if it is
	 * free.
	 * @param handedGrant whether the waiter can take a grant handed over by the last holder
	 * @return the waiter, whose {@link GateWaiter#admission()} completes when it is admitted
	 */
	GateWaiter enter(GateWaiter.HandedGrant handedGrant) {
		GateWaiter waiter = new GateWaiter(handedGrant == GateWaiter.HandedGrant.ACCEPTED, new CompletableFuture<>());
		this.lock.lock();
		try {
			if (!this.occupied) {
				this.occupied = true;
				waiter.admission().complete(Admission.FREE);
				return waiter;
			}
			this.waiters.addLast(waiter);
		}
		finally {
			this.lock.unlock();
		}
		return waiter;
	}

	/**
	 * Withdraw a waiter that gives up.
	 * @return {@code true} if withdrawn, {@code false} if it was admitted meanwhile and holds the
	 * gate now
	 */
	boolean withdraw(GateWaiter waiter) {
		this.lock.lock();
		try {
			return this.waiters.remove(waiter);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Leave the gate and admit the next waiter, if any, to try the store itself.
	 */
	void leave() {
		pickNext(null, 0, null).admit();
	}

	/**
	 * Leave the gate; the next waiter, if any, lets other processes try first for
	 * {@code yieldNanos} before it asks the store.
	 */
	void leaveYielding(long yieldNanos) {
		pickNext(null, yieldNanos, null).admit();
	}

	/**
	 * Leave the gate by handing a grant, still held in the store, to the first waiter, if that
	 * waiter can take one: pick it, out of the queue so that it can no longer withdraw, and leave
	 * it to the caller to admit ({@link Successor#admit()}), after its release and its listener.
	 * @return the waiter picked, which the caller must admit, also when it fails; or
	 * {@link Successor#NONE}, and then the caller still holds the gate
	 */
	Successor pickForHandOff(Grant grant) {
		return pickNext(grant, 0, null);
	}

	/**
	 * Return whether the first waiter can take a handed-over grant.
	 */
	boolean hasWaiterAcceptingHandoff() {
		this.lock.lock();
		try {
			GateWaiter next = this.waiters.peekFirst();
			return next != null && next.acceptsHandoff();
		}
		finally {
			this.lock.unlock();
		}
	}

	void occupy(HeldGrant held) {
		this.occupant = held;
	}

	/**
	 * Return the grant held under this gate, or {@code null} while nobody holds it.
	 */
	HeldGrant occupant() {
		return this.occupant;
	}

	/**
	 * Leave the gate on behalf of a grant that was lost while held, if it still occupies it: the
	 * next waiter of this process goes to the store as waiters of other processes do, instead of
	 * queueing behind a holder whose lease is gone. The lost grant's own release later leaves
	 * the gate alone. The next waiter is admitted at once, not after the lost grant's
	 * {@code onReleased}: its holder is still running and releases whenever it ends, and waiting
	 * for it would keep this process's waiters out while other processes' waiters go to the store.
	 */
	void vacate(HeldGrant lost) {
		pickNext(null, 0, lost).admit();
	}

	/**
	 * Pick the first waiter, or open the gate if there is none. With a grant to hand over, pick
	 * only a waiter that can take one, and otherwise change nothing. The waiter picked is out of
	 * the queue, so it cannot withdraw any more, but is not admitted yet: no lock is held while
	 * its admission completes, which runs its continuations.
	 * @param handOff the grant to hand over, or {@code null}
	 * @param yield how long the admitted waiter lets other processes go first
	 * @param expectedOccupant the grant that must still occupy the gate for anything to change,
	 * or {@code null} when the caller is known to occupy it
	 * @return the waiter picked, or {@link Successor#NONE} (no allocation when nobody waits)
	 */
	private Successor pickNext(Grant handOff, long yield, HeldGrant expectedOccupant) {
		GateWaiter next;
		this.lock.lock();
		try {
			if (expectedOccupant != null && this.occupant != expectedOccupant) {
				return Successor.NONE;
			}
			next = this.waiters.peekFirst();
			if (handOff != null && (next == null || !next.acceptsHandoff())) {
				return Successor.NONE;
			}
			this.occupant = null;
			if (next == null) {
				this.occupied = false;
				return Successor.NONE;
			}
			this.waiters.pollFirst();
		}
		finally {
			this.lock.unlock();
		}
		// Withdrawn waiters are no longer in the queue: the one polled takes the gate for sure.
		return new Successor(next, (handOff != null || yield > 0) ? new Admission(handOff, yield) : Admission.FREE);
	}

	/**
	 * The gates of one registry, reference counted: a gate exists while some hold or wait uses
	 * its key, and disappears with the last of them, so that any number of distinct keys locked
	 * over time leaves nothing behind. The only place that makes, finds or drops gates.
	 */
	static final class Table {

		private final ConcurrentMap<String, Gate> gates = new ConcurrentHashMap<>();

		private volatile boolean closed;

		/**
		 * Return the gate with the given local identity (see {@link HoldRequest#gateKey}),
		 * counting one more reference to it.
		 */
		Gate retain(String gateKey) {
			// compute runs under the map's bin lock: the count and the mapping change together.
			return this.gates.compute(gateKey, (k, gate) -> {
				Gate retained = (gate != null) ? gate : new Gate(k);
				retained.references++;
				return retained;
			});
		}

		/**
		 * Drop one reference to a gate; the last one removes it.
		 */
		void release(Gate gate) {
			this.gates.computeIfPresent(gate.gateKey, (k, current) -> {
				if (current != gate) {
					return current;
				}
				return (--current.references == 0) ? null : current;
			});
		}

		/** Return the gate with the given local identity if some hold or wait uses it. */
		Gate find(String gateKey) {
			return this.gates.get(gateKey);
		}

		/**
		 * Return the grants held now, one per gate that has an occupant.
		 */
		List<HeldGrant> occupants() {
			List<HeldGrant> occupants = new ArrayList<>();
			for (Gate gate : this.gates.values()) {
				HeldGrant occupant = gate.occupant;
				if (occupant != null) {
					occupants.add(occupant);
				}
			}
			return occupants;
		}

		/**
		 * Return the active grants that a store's word of a key gone may concern: the exclusive
		 * and write holds of that key, whose gate a store key names directly.
		 */
		List<HeldGrant> suspected(String key) {
			List<HeldGrant> suspected = new ArrayList<>(1);
			for (LockMode mode : List.of(LockMode.EXCLUSIVE, LockMode.WRITE)) {
				Gate gate = this.gates.get(HoldRequest.gateKey(mode, key, null, 0));
				HeldGrant occupant = (gate != null) ? gate.occupant : null;
				if (occupant != null && occupant.isActive()) {
					suspected.add(occupant);
				}
			}
			return suspected;
		}

		int size() {
			return this.gates.size();
		}

		/**
		 * Close the table as its registry closes, and return the grants held now. A grant that
		 * takes its gate after this finds {@link #isClosed()}; one that took it before is here.
		 */
		List<HeldGrant> close() {
			this.closed = true;
			return occupants();
		}

		boolean isClosed() {
			return this.closed;
		}

	}

}

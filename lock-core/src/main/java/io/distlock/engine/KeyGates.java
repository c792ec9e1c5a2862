package io.distlock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.distlock.store.LockMode;

/**
 * The local per-key gates of one registry, reference counted: a gate exists while some thread
 * holds or waits for its key, and disappears with the last of them, so that any number of
 * distinct keys locked over time leaves nothing behind.
 */
final class KeyGates {

	private final ConcurrentMap<String, Gate> gates = new ConcurrentHashMap<>();

	/**
	 * Return the gate with the given local identity, counting one more reference to it.
	 */
	Gate retain(String gateKey, String key, LockMode mode) {
		// compute runs under the map's bin lock: the count and the mapping change together.
		return this.gates.compute(gateKey, (k, gate) -> {
			Gate retained = (gate != null) ? gate : new Gate(k, key, mode);
			retained.references++;
			return retained;
		});
	}

	/**
	 * Drop one reference to a gate; the last one removes it.
	 */
	void release(Gate gate) {
		this.gates.computeIfPresent(gate.gateKey(), (k, current) -> {
			if (current != gate) {
				return current;
			}
			return (--current.references == 0) ? null : current;
		});
	}

	/**
	 * Return the gate with the given local identity if some thread holds or waits for it.
	 */
	Gate find(String gateKey) {
		return this.gates.get(gateKey);
	}

	/**
	 * Return the local identity of a hold. Exclusive and write locks have one gate per key, so
	 * that threads of this process queue locally and only one of them talks to the store. Readers
	 * and fair waiters have one gate per thread: readers so that they do not exclude each other,
	 * fair waiters so that each takes its own place in the store's queue the moment it arrives.
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

	/**
	 * Return the grants held now, one per gate that has an occupant.
	 */
	List<HeldGrant> occupants() {
		List<HeldGrant> occupants = new ArrayList<>();
		for (Gate gate : this.gates.values()) {
			HeldGrant occupant = gate.occupant();
			if (occupant != null) {
				occupants.add(occupant);
			}
		}
		return occupants;
	}

	/**
	 * Return the active grants that a store's word of a key gone may concern: the exclusive and
	 * write holds of that key, whose gate a store key names directly.
	 */
	List<HeldGrant> suspected(String key) {
		List<HeldGrant> suspected = new ArrayList<>(1);
		for (LockMode mode : List.of(LockMode.EXCLUSIVE, LockMode.WRITE)) {
			Gate gate = this.gates.get(gateKey(mode, key, null, 0));
			HeldGrant occupant = (gate != null) ? gate.occupant() : null;
			if (occupant != null && occupant.isActive()) {
				suspected.add(occupant);
			}
		}
		return suspected;
	}

	int size() {
		return this.gates.size();
	}

	Iterable<Gate> all() {
		return this.gates.values();
	}

}

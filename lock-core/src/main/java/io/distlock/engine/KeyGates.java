package io.distlock.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

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
	 * Return the local identity of a hold: one gate per key and exclusive kind, so that threads
	 * of this process queue locally; one gate per reader thread, so that readers do not.
	 * @param holder the owning thread, or {@code null} for a hold no thread owns
	 */
	static String gateKey(LockMode mode, String key, Thread holder, long uniqueId) {
		return switch (mode) {
			case EXCLUSIVE, FAIR -> key;
			case WRITE -> "\u0000write\u0000" + key;
			case READ -> "\u0000read\u0000" + key + "\u0000"
					+ ((holder != null) ? "thread-" + holder.getId() : "hold-" + uniqueId);
		};
	}

	int size() {
		return this.gates.size();
	}

	Iterable<Gate> all() {
		return this.gates.values();
	}

}

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
	 * Return the gate of a key, counting one more reference to it.
	 */
	Gate retain(String key) {
		// compute runs under the map's bin lock: the count and the mapping change together.
		return this.gates.compute(key, (k, gate) -> {
			Gate retained = (gate != null) ? gate : new Gate(k);
			retained.references++;
			return retained;
		});
	}

	/**
	 * Drop one reference to a gate; the last one removes it.
	 */
	void release(Gate gate) {
		this.gates.computeIfPresent(gate.key(), (k, current) -> {
			if (current != gate) {
				return current;
			}
			return (--current.references == 0) ? null : current;
		});
	}

	/**
	 * Return the gate of a key if some thread holds or waits for it.
	 */
	Gate find(String key) {
		return this.gates.get(key);
	}

	int size() {
		return this.gates.size();
	}

	Iterable<Gate> all() {
		return this.gates.values();
	}

}

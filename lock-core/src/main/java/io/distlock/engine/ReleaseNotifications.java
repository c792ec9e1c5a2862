package io.distlock.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

import io.distlock.core.WaitStrategy;

/**
 * Wakes the threads of this process that wait for a key another process holds. The store
 * delivers one notification per release of an awaited key; every gate waiting on that key (an
 * exclusive waiter, a writer, readers) is woken and retries.
 */
final class ReleaseNotifications {

	private final LockStore store;

	private final boolean enabled;

	private final long retryNanos;

	private final ConcurrentMap<String, Set<Gate>> waiting = new ConcurrentHashMap<>();

	private final ReentrantLock listenLock = new ReentrantLock();

	private volatile boolean listening;

	private volatile boolean attempted;

	private volatile long lastAttemptNanos;

	ReleaseNotifications(LockStore store, RegistrySettings settings) {
		this.store = store;
		this.enabled = settings.waitStrategy() == WaitStrategy.PUB_SUB;
		this.retryNanos = settings.retryInterval().toNanos();
	}

	boolean enabled() {
		return this.enabled;
	}

	/**
	 * Make sure notifications flow before a gate waits.
	 * @return {@code true} if the subscription started just now: a release published before it
	 * existed was missed, so the caller should retry at once
	 */
	boolean ensureListening() {
		if (!this.enabled || this.listening) {
			return false;
		}
		long now = System.nanoTime();
		boolean triedRecently = this.attempted && now - this.lastAttemptNanos < this.retryNanos;
		if (triedRecently || !this.listenLock.tryLock()) {
			// Someone else is subscribing, or tried recently: poll meanwhile.
			return false;
		}
		try {
			if (this.listening) {
				return false;
			}
			this.lastAttemptNanos = now;
			this.attempted = true;
			this.listening = this.store.listen(this::released);
			return this.listening;
		}
		finally {
			this.listenLock.unlock();
		}
	}

	void startWaiting(Gate gate) {
		this.waiting.computeIfAbsent(gate.key(), (key) -> ConcurrentHashMap.newKeySet()).add(gate);
	}

	void stopWaiting(Gate gate) {
		this.waiting.computeIfPresent(gate.key(), (key, gates) -> {
			gates.remove(gate);
			return gates.isEmpty() ? null : gates;
		});
	}

	int waitingKeys() {
		return this.waiting.size();
	}

	private void released(String key) {
		Set<Gate> gates = this.waiting.get(key);
		if (gates != null) {
			gates.forEach(Gate::signalReleased);
		}
	}

}

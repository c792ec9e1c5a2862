package io.distlock.test.memory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.distlock.engine.LockStore;

/**
 * A {@link LockStore} in a map, with the Redis store's semantics: owner-compared release and
 * renewal, expiry on the monotonic clock, strictly growing fencing tokens and release
 * notifications. Every operation runs under one lock, as every script runs alone in Redis.
 */
final class InMemoryLockStore implements LockStore {

	private final Map<String, Entry> entries = new HashMap<>();

	private long lastToken;

	private volatile Consumer<String> releasedKeys;

	@Override
	public synchronized Acquisition tryAcquire(String key, String owner, Duration leaseTime, Duration waitTime) {
		long now = System.nanoTime();
		Entry entry = live(key, now);
		if (entry == null) {
			this.lastToken++;
			this.entries.put(key, new Entry(owner, now + leaseTime.toNanos()));
			return Acquisition.granted(this.lastToken);
		}
		return Acquisition.taken(Duration.ofNanos(entry.expiresNanos - now).toMillis());
	}

	@Override
	public boolean release(String key, String owner) {
		boolean released;
		synchronized (this) {
			Entry entry = live(key, System.nanoTime());
			released = entry != null && entry.owner.equals(owner);
			if (released) {
				this.entries.remove(key);
			}
		}
		Consumer<String> listener = this.releasedKeys;
		if (released && listener != null) {
			listener.accept(key);
		}
		return released;
	}

	@Override
	public synchronized boolean[] renew(List<HeldKey> grants, Duration leaseTime) {
		long now = System.nanoTime();
		boolean[] renewed = new boolean[grants.size()];
		for (int i = 0; i < grants.size(); i++) {
			HeldKey grant = grants.get(i);
			Entry entry = live(grant.key(), now);
			if (entry != null && entry.owner.equals(grant.owner())) {
				entry.expiresNanos = now + leaseTime.toNanos();
				renewed[i] = true;
			}
		}
		return renewed;
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		this.releasedKeys = releasedKeys;
		return true;
	}

	@Override
	public void ping() {
		// Always reachable: it lives in this JVM.
	}

	@Override
	public void close() {
		this.releasedKeys = null;
	}

	/**
	 * Remove a key whoever holds it, as an operator's {@code DEL} would.
	 * @return whether the key was held
	 */
	synchronized boolean delete(String key) {
		return live(key, System.nanoTime()) != null && this.entries.remove(key) != null;
	}

	synchronized boolean isHeld(String key) {
		return live(key, System.nanoTime()) != null;
	}

	synchronized int size() {
		this.entries.values().removeIf((entry) -> entry.expiresNanos - System.nanoTime() <= 0);
		return this.entries.size();
	}

	private Entry live(String key, long now) {
		Entry entry = this.entries.get(key);
		if (entry != null && entry.expiresNanos - now <= 0) {
			this.entries.remove(key);
			return null;
		}
		return entry;
	}

	private static final class Entry {

		private final String owner;

		private long expiresNanos;

		Entry(String owner, long expiresNanos) {
			this.owner = owner;
			this.expiresNanos = expiresNanos;
		}

	}

}

package io.distlock.test.memory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.distlock.store.LockMode;
import io.distlock.store.LockStore.Acquisition;
import io.distlock.store.LockStore.Checkpoint;
import io.distlock.store.LockStore.HeldKey;
import io.distlock.store.LockStore.Release;

/**
 * The state of an {@link InMemoryLockStore}, with the Redis store's semantics: owner-compared
 * release and renewal, expiry on the monotonic clock, strictly growing fencing tokens, a fair
 * queue with expiring places, readers and writers, and the waiting marks that a release or a
 * checkpoint reports. Every operation runs under one lock, as every script runs alone in Redis.
 */
final class InMemoryLocks {

	/** Exclusive and fair locks. */
	private final Map<String, Entry> locks = new HashMap<>();

	/** Write locks, apart from exclusive ones as in Redis. */
	private final Map<String, Entry> writers = new HashMap<>();

	/** Readers per key: owner to lease end. */
	private final Map<String, Map<String, Long>> readers = new HashMap<>();

	/** Fair queues per key: owner to place expiry, in arrival order. */
	private final Map<String, LinkedHashMap<String, Long>> queues = new HashMap<>();

	/** Keys a writer waits for, and until when: new readers hold back. */
	private final Map<String, Long> writersWaiting = new HashMap<>();

	/** Exclusive keys someone waits for, and until when: their release says so. */
	private final Map<String, Long> awaited = new HashMap<>();

	private long lastToken;

	synchronized Acquisition tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		long now = System.nanoTime();
		long leaseEnd = now + leaseTime.toNanos();
		return switch (mode) {
			case EXCLUSIVE -> acquireExclusive(key, owner, leaseEnd, waitTime, now);
			case FAIR -> acquireFair(key, owner, leaseEnd, waitTime, now);
			case WRITE -> acquireWrite(key, owner, leaseEnd, waitTime, now);
			case READ -> acquireRead(key, owner, leaseEnd, now, null);
		};
	}

	synchronized Acquisition tryAcquireReadUnderWrite(String key, String owner, Duration leaseTime,
			String writeOwner) {
		long now = System.nanoTime();
		return acquireRead(key, owner, now + leaseTime.toNanos(), now, writeOwner);
	}

	synchronized boolean release(LockMode mode, String key, String owner) {
		long now = System.nanoTime();
		return switch (mode) {
			case EXCLUSIVE -> {
				boolean owned = removeIfOwner(this.locks, key, owner, now);
				// Only the holder's release clears the waiters' mark, as in releaseExclusive: a
				// give-back of an attempt that holds nothing must not make waiters invisible.
				if (owned) {
					this.awaited.remove(key);
				}
				yield owned;
			}
			case FAIR -> {
				LinkedHashMap<String, Long> queue = this.queues.get(key);
				if (queue != null) {
					queue.remove(owner);
					dropIfEmpty(this.queues, key, queue);
				}
				yield removeIfOwner(this.locks, key, owner, now);
			}
			case WRITE -> removeIfOwner(this.writers, key, owner, now);
			case READ -> {
				Map<String, Long> keyReaders = this.readers.getOrDefault(key, new HashMap<>());
				Long end = keyReaders.remove(owner);
				dropIfEmpty(this.readers, key, keyReaders);
				yield end != null && end - now > 0;
			}
		};
	}

	synchronized Release releaseExclusive(String key, String owner, long lastToken) {
		// Tokens are one sequence for all keys here: raising it keeps every key's tokens growing.
		this.lastToken = Math.max(this.lastToken, lastToken);
		long now = System.nanoTime();
		if (!removeIfOwner(this.locks, key, owner, now)) {
			return Release.NOT_HELD;
		}
		Long until = this.awaited.remove(key);
		return (until != null && until - now > 0) ? Release.RELEASED_AWAITED : Release.RELEASED;
	}

	synchronized Checkpoint keepUnlessAwaited(String key, String owner, long lastToken, Duration leaseTime) {
		this.lastToken = Math.max(this.lastToken, lastToken);
		long now = System.nanoTime();
		Entry entry = live(this.locks, key, now);
		if (entry == null || !entry.owner.equals(owner)) {
			return new Checkpoint(Release.NOT_HELD, 0);
		}
		Long until = this.awaited.get(key);
		if (until == null || until - now <= 0) {
			this.awaited.remove(key);
			entry.expiresNanos = now + leaseTime.toNanos();
			return new Checkpoint(Release.KEPT, ++this.lastToken);
		}
		// Someone waits: release as releaseExclusive does.
		return new Checkpoint(releaseExclusive(key, owner, 0), 0);
	}

	synchronized boolean keepExclusive(String key, String owner, long lastToken, Duration keepTime) {
		this.lastToken = Math.max(this.lastToken, lastToken);
		long now = System.nanoTime();
		Entry entry = live(this.locks, key, now);
		if (entry == null || !entry.owner.equals(owner)) {
			return false;
		}
		entry.expiresNanos = now + keepTime.toNanos();
		return true;
	}

	synchronized boolean isHeld(HeldKey grant) {
		long now = System.nanoTime();
		if (grant.mode() == LockMode.READ) {
			Long end = this.readers.getOrDefault(grant.key(), Map.of()).get(grant.owner());
			return end != null && end - now > 0;
		}
		Entry entry = live((grant.mode() == LockMode.WRITE) ? this.writers : this.locks, grant.key(), now);
		return entry != null && entry.owner.equals(grant.owner());
	}

	synchronized boolean[] renew(List<HeldKey> grants, Duration leaseTime) {
		long now = System.nanoTime();
		boolean[] renewed = new boolean[grants.size()];
		for (int i = 0; i < grants.size(); i++) {
			HeldKey grant = grants.get(i);
			if (grant.mode() == LockMode.READ) {
				Map<String, Long> keyReaders = this.readers.getOrDefault(grant.key(), Map.of());
				Long end = keyReaders.get(grant.owner());
				if (end != null && end - now > 0) {
					keyReaders.put(grant.owner(), now + leaseTime.toNanos());
					renewed[i] = true;
				}
				continue;
			}
			Map<String, Entry> map = (grant.mode() == LockMode.WRITE) ? this.writers : this.locks;
			Entry entry = live(map, grant.key(), now);
			if (entry != null && entry.owner.equals(grant.owner())) {
				entry.expiresNanos = now + leaseTime.toNanos();
				renewed[i] = true;
			}
		}
		return renewed;
	}

	/**
	 * Remove an exclusive or fair lock whoever holds it, as an operator's {@code DEL} would.
	 * @return whether the key was held
	 */
	synchronized boolean delete(String key) {
		return live(this.locks, key, System.nanoTime()) != null && this.locks.remove(key) != null;
	}

	synchronized boolean isHeld(String key) {
		return live(this.locks, key, System.nanoTime()) != null;
	}

	private Acquisition acquireExclusive(String key, String owner, long leaseEnd, Duration waitTime, long now) {
		Entry entry = live(this.locks, key, now);
		if (entry == null) {
			this.locks.put(key, new Entry(owner, leaseEnd));
			return Acquisition.granted(++this.lastToken);
		}
		if (!waitTime.isZero()) {
			this.awaited.merge(key, now + waitTime.toNanos(), Math::max);
		}
		return Acquisition.taken(Duration.ofNanos(entry.expiresNanos - now).toMillis());
	}

	private Acquisition acquireFair(String key, String owner, long leaseEnd, Duration waitTime, long now) {
		LinkedHashMap<String, Long> queue = this.queues.computeIfAbsent(key, (k) -> new LinkedHashMap<>());
		for (Iterator<Long> places = queue.values().iterator(); places.hasNext();) {
			if (places.next() - now >= 0) {
				break;
			}
			places.remove();
		}
		String head = queue.isEmpty() ? null : queue.keySet().iterator().next();
		Entry entry = live(this.locks, key, now);
		if (entry == null && (head == null || head.equals(owner))) {
			queue.remove(owner);
			dropIfEmpty(this.queues, key, queue);
			this.locks.put(key, new Entry(owner, leaseEnd));
			return Acquisition.granted(++this.lastToken);
		}
		if (!waitTime.isZero()) {
			// A place keeps its position in the queue; it only gets a new expiry.
			queue.put(owner, now + waitTime.toNanos());
		}
		dropIfEmpty(this.queues, key, queue);
		return Acquisition.taken((entry != null) ? Duration.ofNanos(entry.expiresNanos - now).toMillis() : -1);
	}

	private Acquisition acquireWrite(String key, String owner, long leaseEnd, Duration waitTime, long now) {
		Map<String, Long> keyReaders = liveReaders(key, now);
		Entry writer = live(this.writers, key, now);
		if (writer == null && keyReaders.isEmpty()) {
			this.writers.put(key, new Entry(owner, leaseEnd));
			this.writersWaiting.remove(key);
			return Acquisition.granted(++this.lastToken);
		}
		if (!waitTime.isZero()) {
			this.writersWaiting.merge(key, now + waitTime.toNanos(), Math::max);
		}
		long until = (writer != null) ? writer.expiresNanos
				: keyReaders.values().stream().mapToLong(Long::longValue).max().orElse(now);
		return Acquisition.taken(Duration.ofNanos(until - now).toMillis());
	}

	private Acquisition acquireRead(String key, String owner, long leaseEnd, long now, String writeOwner) {
		Entry writer = live(this.writers, key, now);
		Long writerWaits = this.writersWaiting.get(key);
		boolean writerWaiting = writerWaits != null && writerWaits - now > 0;
		boolean downgrade = writer != null && writer.owner.equals(writeOwner);
		if (downgrade || (writer == null && !writerWaiting)) {
			liveReaders(key, now).put(owner, leaseEnd);
			return Acquisition.granted(++this.lastToken);
		}
		long until = (writer != null) ? writer.expiresNanos : writerWaits;
		return Acquisition.taken(Duration.ofNanos(until - now).toMillis());
	}

	private Map<String, Long> liveReaders(String key, long now) {
		Map<String, Long> keyReaders = this.readers.computeIfAbsent(key, (k) -> new HashMap<>());
		keyReaders.values().removeIf((end) -> end - now <= 0);
		return keyReaders;
	}

	private static void dropIfEmpty(Map<String, ? extends Map<String, Long>> maps, String key, Map<String, Long> map) {
		if (map.isEmpty()) {
			maps.remove(key);
		}
	}

	private static boolean removeIfOwner(Map<String, Entry> map, String key, String owner, long now) {
		Entry entry = live(map, key, now);
		if (entry != null && entry.owner.equals(owner)) {
			map.remove(key);
			return true;
		}
		return false;
	}

	private static Entry live(Map<String, Entry> map, String key, long now) {
		Entry entry = map.get(key);
		if (entry != null && entry.expiresNanos - now <= 0) {
			map.remove(key);
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

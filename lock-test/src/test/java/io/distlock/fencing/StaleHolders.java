package io.distlock.fencing;

import java.time.Duration;
import java.util.UUID;

import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of a service on one Redis, as the fencing tests need them: two registries and a
 * fresh key. {@link #staleAndNewer()} makes a stale holder and the holder after it.
 */
final class StaleHolders {

	/** The lock name of the stale hold, as the fencing listener's meters tag it. */
	static final String STALE_LOCK_NAME = "Stock.read";

	private static final Duration SHORT_LEASE = Duration.ofMillis(300);

	private final RedisLockRegistry first;

	private final RedisLockRegistry second;

	private final String key;

	/**
	 * Make the two registries (closed after the test) and a key with the given prefix.
	 * @param registries the test's registries
	 * @param prefix the key's prefix, such as {@code "stock"}
	 */
	StaleHolders(LockRegistries registries, String prefix) {
		this.first = registries.redis();
		this.second = registries.redis();
		this.key = prefix + ":" + UUID.randomUUID();
	}

	RedisLockRegistry first() {
		return this.first;
	}

	RedisLockRegistry second() {
		return this.second;
	}

	String key() {
		return this.key;
	}

	/**
	 * The first registry takes the key with a short fixed lease and keeps its lease while it runs
	 * out (a holder paused past its lease); the second takes the key after it, with a greater
	 * token.
	 * @return the stale lease and the newer one
	 */
	Holds staleAndNewer() {
		LockLease older = this.first.acquire(LockRequest.of(this.key)
			.waitTime(Duration.ofSeconds(2))
			.leaseTime(SHORT_LEASE)
			.name(STALE_LOCK_NAME));
		await().atMost(Duration.ofSeconds(10)).until(() -> !older.isValid());
		LockLease newer = this.second.acquire(this.key, Duration.ofSeconds(5));
		assertThat(newer.fencingToken()).isGreaterThan(older.fencingToken());
		return new Holds(older, newer);
	}

	/**
	 * A stale lease and the newer one of the same key.
	 * @param older the lease that ran out
	 * @param newer the lease taken after it
	 */
	record Holds(LockLease older, LockLease newer) {
	}

}

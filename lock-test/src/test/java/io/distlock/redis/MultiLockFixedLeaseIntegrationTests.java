package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.DistLock;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multi-lock taken with a fixed lease, on a real {@code redis-server}: every key carries the
 * lease as its TTL, each key's own lease extends that key in Redis, and the unlock deletes every
 * key.
 */
@Timeout(60)
class MultiLockFixedLeaseIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void everyKeyCarriesTheFixedLeaseAndExtendsThroughItsOwnLease() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		String first = "a:" + UUID.randomUUID();
		String last = "b:" + UUID.randomUUID();
		DistLock both = registry.obtainMulti(last, first);
		assertThat(both.tryLock(Duration.ofSeconds(2), Duration.ofSeconds(5))).isTrue();
		try {
			for (String key : List.of(first, last)) {
				assertThat(ttlMillis(key)).as("'%s' carries the fixed lease", key).isBetween(4_000L, 5_000L);
			}
			// The multi-lock's own lease is the last key's in the global order; every other key
			// is extended through its own lease.
			assertThat(both.lease().key()).isEqualTo(last);
			for (String key : List.of(first, last)) {
				assertThat(registry.obtain(key).lease().extend(Duration.ofSeconds(15))).isTrue();
			}
			for (String key : List.of(first, last)) {
				assertThat(ttlMillis(key)).as("'%s' extended in Redis", key).isBetween(14_000L, 15_000L);
			}
			assertThat(registry.obtain(first).lease().remaining()).isGreaterThan(Duration.ofSeconds(10));
		}
		finally {
			both.unlock();
		}
		for (String key : List.of(first, last)) {
			assertThat(redis().hasKey(lockKey(key))).as("'%s' released", key).isFalse();
		}
		assertThat(registry.localKeyCount()).isZero();
	}

	private static long ttlMillis(String key) {
		return redis().getExpire(lockKey(key), TimeUnit.MILLISECONDS);
	}

	private static StringRedisTemplate redis() {
		return redis.server().template();
	}

	private static String lockKey(String key) {
		return RedisLockRegistry.DEFAULT_KEY_PREFIX + "{" + key + "}";
	}

}

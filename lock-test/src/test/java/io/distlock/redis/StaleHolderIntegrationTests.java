package io.distlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A holder whose key vanished behind its back (an early expiry, an operator's {@code DEL}) while
 * its own lease still looks valid, and whose key another process has taken since: nothing it
 * does with its stale lease may touch the successor's lock. Unlike the contract's expiry tests,
 * the stale holder has not noticed the loss locally, so each call reaches Redis and only the
 * owner comparison in the scripts stands between it and the successor's key.
 */
@Timeout(60)
class StaleHolderIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration STALE_LEASE = Duration.ofSeconds(20);

	private static final Duration SUCCESSOR_LEASE = Duration.ofSeconds(5);

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void aStaleExtendNeitherMovesNorTakesTheSuccessorsLease() {
		Scene scene = new Scene();
		long ttlBefore = scene.successorTtl();
		assertThat(scene.stale.extend(Duration.ofSeconds(60))).as("the stale holder's extension").isFalse();
		assertThat(scene.lost).as("the refused extension tells the stale holder, once").hasValue(1);
		assertThat(scene.stale.isValid()).isFalse();
		scene.assertSuccessorUntouched(ttlBefore);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(scene.stale::release);
		scene.assertSuccessorUntouched(ttlBefore);
	}

	@Test
	void aStaleReleaseLeavesTheSuccessorsLockInPlace() {
		Scene scene = new Scene();
		long ttlBefore = scene.successorTtl();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(scene.stale::release)
			.withMessageContaining("may have been changed concurrently");
		assertThat(scene.lost).hasValue(1);
		scene.assertSuccessorUntouched(ttlBefore);
		assertThat(scene.staleRegistry.localKeyCount()).isZero();
	}

	@Test
	void aStaleReleaseWithAMinimumHoldDoesNotKeepTheSuccessorsKeyLonger() {
		Scene scene = new Scene();
		long ttlBefore = scene.successorTtl();
		// A minimum hold far beyond the successor's lease: kept by extending the key in Redis,
		// which for a stale holder must be refused.
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> scene.stale.release(Duration.ofSeconds(60)));
		assertThat(scene.lost).hasValue(1);
		scene.assertSuccessorUntouched(ttlBefore);
	}

	/**
	 * One registry holds a key with a long fixed lease; the key expires early in Redis; a second
	 * registry takes it with a shorter fixed lease. Neither lease is renewed by a watchdog, so
	 * the successor's TTL in Redis only ever goes down unless someone extends it.
	 */
	private final class Scene {

		final RedisLockRegistry staleRegistry = StaleHolderIntegrationTests.this.registries.redis();

		final RedisLockRegistry successorRegistry = StaleHolderIntegrationTests.this.registries.redis();

		final String key = "stale:" + UUID.randomUUID();

		final String redisKey = "distlock:{" + this.key + "}";

		final AtomicInteger lost = new AtomicInteger();

		final LockLease stale;

		final LockLease successor;

		Scene() {
			this.stale = this.staleRegistry.acquire(LockRequest.of(this.key).leaseTime(STALE_LEASE));
			this.stale.onLost((ex) -> this.lost.incrementAndGet());
			// Expired early in Redis (a clock step, an eviction, an operator): the holder cannot know.
			assertThat(redis.server().command("PEXPIRE", this.redisKey, "1")).isEqualTo(":1");
			this.successor = this.successorRegistry
				.acquire(LockRequest.of(this.key).leaseTime(SUCCESSOR_LEASE).waitTime(Duration.ofSeconds(5)));
			assertThat(this.stale.isValid()).as("the stale holder has not noticed").isTrue();
			assertThat(this.lost).hasValue(0);
		}

		long successorTtl() {
			return redis().getExpire(this.redisKey, TimeUnit.MILLISECONDS);
		}

		void assertSuccessorUntouched(long ttlBefore) {
			assertThat(redis().opsForValue().get(this.redisKey)).as("the lock key's owner")
				.startsWith(this.successorRegistry.getSettings().instanceId() + ":");
			assertThat(successorTtl()).as("the successor's TTL, neither extended nor cut")
				.isBetween(1L, ttlBefore);
			assertThat(this.successor.confirm()).as("the successor still holds in Redis").isTrue();
			assertThat(this.successor.isValid()).isTrue();
		}

	}

	private static StringRedisTemplate redis() {
		return redis.server().template();
	}

}

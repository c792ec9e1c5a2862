package io.distlock.redis;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locks are per key and per key prefix: one thread holds several keys at once and frees each on
 * its own, and registries with different key prefixes on one Redis never exclude each other.
 */
@Timeout(60)
class KeyIndependenceIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void aThreadHoldsTwoKeysAtOnceAndFreesEachOnItsOwn() {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		String foo = "foo:" + UUID.randomUUID();
		String bar = "bar:" + UUID.randomUUID();
		DistLock fooLock = registry.obtain(foo);
		DistLock barLock = registry.obtain(bar);
		assertThat(fooLock.tryLock()).isTrue();
		assertThat(barLock.tryLock()).isTrue();
		assertThat(fooLock.lease().fencingToken()).isNotEqualTo(barLock.lease().fencingToken());
		assertThat(other.tryAcquire(foo, Duration.ZERO)).isEmpty();
		assertThat(other.tryAcquire(bar, Duration.ZERO)).isEmpty();
		fooLock.unlock();
		assertThat(barLock.isHeldByCurrentThread()).as("bar outlives the release of foo").isTrue();
		assertThat(other.tryAcquire(foo, Duration.ZERO)).as("foo is free").hasValueSatisfying(LockLease::release);
		assertThat(other.tryAcquire(bar, Duration.ZERO)).as("bar is still held").isEmpty();
		barLock.unlock();
		assertThat(other.tryAcquire(bar, Duration.ZERO)).hasValueSatisfying(LockLease::release);
		assertThat(registry.localKeyCount()).isZero();
	}

	@Test
	void registriesWithDifferentKeyPrefixesNeverExcludeEachOther() {
		RedisLockRegistry orders = this.registries.redis((builder) -> builder.keyPrefix("orders:locks:"));
		RedisLockRegistry ordersToo = this.registries.redis((builder) -> builder.keyPrefix("orders:locks:"));
		RedisLockRegistry billing = this.registries.redis((builder) -> builder.keyPrefix("billing:locks:"));
		String key = "account:" + UUID.randomUUID();
		try (LockLease held = orders.acquire(key, Duration.ZERO)) {
			assertThat(ordersToo.tryAcquire(key, Duration.ZERO)).as("same prefix, same key").isEmpty();
			try (LockLease elsewhere = billing.acquire(key, Duration.ZERO)) {
				assertThat(redis.server().template().hasKey("orders:locks:{" + key + "}")).isTrue();
				assertThat(redis.server().template().hasKey("billing:locks:{" + key + "}")).isTrue();
			}
			assertThat(held.confirm()).as("the other prefix's release left this lock alone").isTrue();
		}
		assertThat(ordersToo.tryAcquire(key, Duration.ZERO)).hasValueSatisfying(LockLease::release);
	}

}

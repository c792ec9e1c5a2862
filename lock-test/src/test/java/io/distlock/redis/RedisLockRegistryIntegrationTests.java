package io.distlock.redis;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.DistLock;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockKeyException;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;
import io.distlock.detector.HandoffLatency;
import io.distlock.detector.Workers;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the Redis registry writes and sends: key layout, owners, leases, notifications only when
 * someone waits, renewals only while held, and fencing tokens that survive a restart.
 */
@Timeout(60)
class RedisLockRegistryIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@Test
	void lockKeyNamesItsOwnerAndCarriesTheLease() {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder
			.instanceId("inventory-1").keyPrefix("app:locks:"));
		String key = this.registries.randomKey();
		try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
			String redisKey = "app:locks:{" + key + "}";
			assertThat(redis().opsForValue().get(redisKey)).startsWith("inventory-1:");
			assertThat(redis().getExpire(redisKey, TimeUnit.MILLISECONDS)).isBetween(25_000L, 30_000L);
			assertThat(redis().opsForValue().get(redisKey + ":fence")).isEqualTo(Long.toString(lease.fencingToken()));
		}
		assertThat(redis().hasKey("app:locks:{" + key + "}")).isFalse();
	}

	@Test
	void fixedLeaseTimeIsTheKeysTtlAndIsNotRenewed() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder.leaseTime(Duration.ofSeconds(1)));
		String key = this.registries.randomKey();
		try (LockLease lease = registry.acquire(LockRequest.of(key).leaseTime(Duration.ofSeconds(5)))) {
			assertThat(redis().getExpire("distlock:{" + key + "}", TimeUnit.MILLISECONDS)).isBetween(4_000L, 5_000L);
			Thread.sleep(1_000);
			// A renewal would have reset the TTL to the registry's 1 s lease.
			assertThat(redis().getExpire("distlock:{" + key + "}", TimeUnit.MILLISECONDS)).isBetween(3_000L, 4_000L);
		}
	}

	@Test
	void anUncontendedCycleIsTwoRoundTripsAndReentryIsFree() {
		RedisLockRegistry registry = this.registries.redis();
		DistLock lock = registry.obtain(this.registries.randomKey());
		long before = redis.server().scriptCalls();
		lock.lock();
		lock.unlock();
		assertThat(redis.server().scriptCalls() - before).as("one acquire and one release").isEqualTo(2);

		before = redis.server().scriptCalls();
		lock.lock();
		lock.lock();
		lock.lock();
		lock.unlock();
		lock.unlock();
		assertThat(redis.server().scriptCalls() - before).as("re-entry and its unlock stay local").isEqualTo(1);
		lock.unlock();
		assertThat(redis.server().scriptCalls() - before).isEqualTo(2);
	}

	@Test
	void releasePublishesOnlyWhenSomeoneWaits() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry competitor = this.registries.redis();
		String key = this.registries.randomKey();
		long before = redis.server().commandCalls("publish");
		for (int i = 0; i < 20; i++) {
			registry.acquire(key, Duration.ZERO).release();
		}
		assertThat(redis.server().commandCalls("publish")).isEqualTo(before);

		HandoffLatency.millis(registry, competitor, key, Duration.ofMillis(500));
		assertThat(redis.server().commandCalls("publish")).isGreaterThan(before);
	}

	@Test
	void waiterIsWokenByTheReleaseNotByItsRetryInterval() throws Exception {
		RedisLockRegistry holder = this.registries.redis();
		RedisLockRegistry waiter = this.registries.redis((builder) -> builder.retryInterval(Duration.ofSeconds(20)));
		String key = this.registries.randomKey();
		assertThat(HandoffLatency.millis(holder, waiter, key, Duration.ofMillis(500))).isLessThan(1_000);
	}

	@Test
	void silentExpiryWakesTheWaiterAtTheHoldersRemainingLease() throws Exception {
		RedisLockRegistry holder = this.registries.redis();
		RedisLockRegistry waiter = this.registries.redis((builder) -> builder.retryInterval(Duration.ofSeconds(20)));
		String key = this.registries.randomKey();
		// Never released: the key simply expires, and nobody publishes.
		holder.acquire(LockRequest.of(key).leaseTime(Duration.ofMillis(600)));
		long start = System.nanoTime();
		try (LockLease lease = waiter.acquire(key, Duration.ofSeconds(30))) {
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(400L, 1_500L);
		}
	}

	@Test
	void pollingHandsOverWithoutAnySubscription() throws Exception {
		RedisLockRegistry first = this.registries.redis((builder) -> builder.waitStrategy(WaitStrategy.POLLING));
		RedisLockRegistry second = this.registries.redis((builder) -> builder
			.waitStrategy(WaitStrategy.POLLING)
			.retryInterval(Duration.ofMillis(50)));
		String key = this.registries.randomKey();
		long publishes = redis.server().commandCalls("publish");
		assertThat(HandoffLatency.millis(first, second, key, Duration.ofMillis(500))).isLessThan(500);
		assertThat(redis.server().commandCalls("publish")).isEqualTo(publishes);
		// No subscriber anywhere: PUBSUB CHANNELS answers an empty array.
		assertThat(redis.server().command("PUBSUB", "CHANNELS")).isEqualTo("*0");
	}

	@Test
	void watchdogKeepsAOneSecondLeaseForTenSecondsWhileACompetitorNeverGetsIt() throws Exception {
		RedisLockRegistry holder = this.registries.redis((builder) -> builder.leaseTime(Duration.ofSeconds(1)));
		RedisLockRegistry competitor = this.registries.redis();
		String key = this.registries.randomKey();
		String redisKey = "distlock:{" + key + "}";
		int attempts = 0;
		long minTtl = Long.MAX_VALUE;
		try (LockLease lease = holder.acquire(key, Duration.ZERO)) {
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < until) {
				assertThat(competitor.tryAcquire(key, Duration.ZERO)).isEmpty();
				minTtl = Math.min(minTtl, redis().getExpire(redisKey, TimeUnit.MILLISECONDS));
				attempts++;
				Thread.sleep(50);
			}
			assertThat(lease.isValid()).isTrue();
		}
		assertThat(attempts).isGreaterThan(100);
		// Renewed every third of the lease: the TTL never falls below lease - interval - margin.
		assertThat(minTtl).isGreaterThan(1000 - 333 - 150);
	}

	@Test
	void noRenewalIsSentOnceTheLockIsReleased() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder.leaseTime(Duration.ofMillis(300)));
		String key = this.registries.randomKey();
		DistLock lock = registry.obtain(key);
		lock.lock();
		Thread.sleep(400);
		lock.unlock();
		Thread.sleep(100);
		long scripts = redis.server().scriptCalls();
		Thread.sleep(1_000);
		assertThat(redis.server().scriptCalls()).isEqualTo(scripts);
		assertThat(redis().hasKey("distlock:{" + key + "}")).isFalse();
	}

	@Test
	void fencingTokenGrowsAcrossARestartWithoutPersistence() {
		RedisLockRegistry registry = this.registries.redis();
		String key = this.registries.randomKey();
		long before;
		try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
			before = lease.fencingToken();
		}
		redis.server().kill();
		redis.server().restart();
		assertThat(redis().hasKey("distlock:{" + key + "}:fence")).isFalse();
		try (LockLease lease = registry.acquire(key, Duration.ofSeconds(10))) {
			assertThat(lease.fencingToken()).isGreaterThan(before);
		}
	}

	@Test
	void manyDistinctKeysLeaveNoLocalStateAndNoLockKeys() throws Exception {
		RedisLockRegistry registry = this.registries.redis((builder) -> builder.keyPrefix("many:"));
		Workers.runAll(Executors.newFixedThreadPool(4), 4, (worker) -> {
			for (int i = 0; i < 2_500; i++) {
				DistLock lock = registry.obtain(this.registries.randomKey());
				lock.lock();
				lock.unlock();
			}
		});
		assertThat(registry.localKeyCount()).isZero();
		assertThat(scan("many:{*}")).isEmpty();
		assertThat(scan("many:{*}:waiting")).isEmpty();
	}

	@Test
	void invalidOptionsAreRejectedNamingTheOption() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(factory()).keyPrefix("locks{").build())
			.withMessageContaining("keyPrefix");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(factory()).keyPrefix("").build())
			.withMessage("keyPrefix must not be empty");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(factory())
				.leaseTime(Duration.ofSeconds(1))
				.renewalInterval(Duration.ofMillis(800))
				.build())
			.withMessageContaining("renewalInterval 'PT0.8S' must be at most half of leaseTime 'PT1S'");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(factory()).leaseTime(Duration.ZERO).build())
			.withMessage("leaseTime must be positive but was 'PT0S'");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(factory()).fenceRetentionTime(Duration.ofSeconds(-1)).build())
			.withMessageContaining("fenceRetentionTime");
	}

	@Test
	void aLeaseTooShortToBeGrantedOrRenewedIsRejectedByTheBuilderWithTheMinimumAndWhy() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(factory()).leaseTime(Duration.ofMillis(2)).build())
			.withMessageStartingWith("leaseTime must be at least 30ms but was 'PT0.002S': the watchdog renews a lock"
					+ " every third of its lease and not more often than every 10ms")
			.withMessageContaining("drift margin");
		// With its own renewal interval the watchdog's lease may be shorter, but never below the
		// minimum lease: the drift margin alone would leave it no validity.
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(factory())
				.leaseTime(Duration.ofMillis(2))
				.renewalInterval(Duration.ofMillis(10))
				.build())
			.withMessageStartingWith("leaseTime must be at least 10ms but was 'PT0.002S'")
			.withMessageContaining("drift margin of 1% plus 2ms");
		this.registries.redis((builder) -> builder.leaseTime(Duration.ofMillis(30)));
		this.registries.redis((builder) -> builder.leaseTime(Duration.ofMillis(20))
			.renewalInterval(Duration.ofMillis(10)));
	}

	@Test
	void unusableKeysAreRejectedBeforeAnythingIsSent() {
		RedisLockRegistry registry = this.registries.redis();
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> registry.obtain(" "))
			.withMessage("Lock key must not be blank but was ' '");
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> registry.obtain(null))
			.withMessage("Lock key must not be null");
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> registry.acquire("}odd", Duration.ZERO))
			.withMessageContaining("must not start with '}'");
		assertThat(registry.localKeyCount()).isZero();
	}

	private Set<String> scan(String pattern) {
		return redis().execute((RedisCallback<Set<String>>) (connection) -> {
			Set<String> keys = new HashSet<>();
			try (Cursor<byte[]> cursor = connection.keyCommands()
				.scan(ScanOptions.scanOptions().match(pattern).count(1000).build())) {
				cursor.forEachRemaining((key) -> keys.add(new String(key)));
			}
			return keys;
		});
	}

	private static org.springframework.data.redis.connection.RedisConnectionFactory factory() {
		return redis.server().connectionFactory();
	}

	private static StringRedisTemplate redis() {
		return redis.server().template();
	}

}

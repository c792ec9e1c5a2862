package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

import io.distlock.core.DistLock;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquisition that finds the lock taken, with or without a wait, reads the holder's
 * remaining lease and marks that it waits, but never moves the holder's lease: not longer (a
 * crashed holder would then block everyone for longer than its lease) and not shorter (the
 * holder would lose a lock it still believes valid). Checked for every kind of lock, with the
 * holder on a fixed lease so that no watchdog renewal moves it either.
 */
@Timeout(60)
class RefusedAcquisitionIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration HOLDER_LEASE = Duration.ofSeconds(20);

	/** Slack between Redis's clock and ours when comparing what is left of a lease. */
	private static final long SLACK_MILLIS = 50;

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	@ParameterizedTest
	@EnumSource(Contention.class)
	void aRefusedAcquisitionLeavesTheHoldersLeaseAsItWas(Contention contention) throws Exception {
		RedisLockRegistry holderRegistry = this.registries.redis();
		RedisLockRegistry contenderRegistry = this.registries.redis();
		String key = "refused:" + UUID.randomUUID();
		String heldKey = "distlock:{" + key + "}" + contention.heldKeySuffix;
		DistLock holder = contention.holder.apply(holderRegistry, key);
		DistLock contender = contention.contender.apply(contenderRegistry, key);
		assertThat(holder.tryLock(Duration.ZERO, HOLDER_LEASE)).isTrue();
		try {
			// Timed around both snapshots: the lease cannot have run down by more than this.
			long start = System.nanoTime();
			Snapshot before = snapshot(heldKey);
			assertThat(contender.tryLock()).as("contender without a wait").isFalse();
			assertThat(contender.tryLock(Duration.ofMillis(300))).as("contender with a wait").isFalse();
			Snapshot after = snapshot(heldKey);
			long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

			assertThat(after.owners()).as("who holds the lock").isEqualTo(before.owners());
			assertThat(after.ttlMillis()).as("the holder's lease: never extended")
				.isLessThanOrEqualTo(before.ttlMillis());
			assertThat(after.ttlMillis()).as("and never cut")
				.isGreaterThanOrEqualTo(before.ttlMillis() - elapsedMillis - SLACK_MILLIS);
			assertThat(holder.lease().isValid()).isTrue();
			assertThat(holder.lease().confirm()).isTrue();
		}
		finally {
			holder.unlock();
		}
		assertThat(redis().hasKey(heldKey)).isFalse();
	}

	private Snapshot snapshot(String heldKey) {
		long ttl = redis().getExpire(heldKey, TimeUnit.MILLISECONDS);
		assertThat(ttl).as("TTL of " + heldKey).isPositive();
		if (heldKey.endsWith(":readers")) {
			// Each reader is a member scored with the end of its lease.
			Set<TypedTuple<String>> readers = redis().opsForZSet().rangeWithScores(heldKey, 0, -1);
			List<String> owners = new ArrayList<>();
			readers.forEach((reader) -> owners.add(reader.getValue() + "@" + reader.getScore().longValue()));
			return new Snapshot(owners, ttl);
		}
		return new Snapshot(List.of(redis().opsForValue().get(heldKey)), ttl);
	}

	private static StringRedisTemplate redis() {
		return redis.server().template();
	}

	private record Snapshot(List<String> owners, long ttlMillis) {
	}

	enum Contention {

		EXCLUSIVE("", RedisLockRegistry::obtain, RedisLockRegistry::obtain),

		FAIR("", RedisLockRegistry::obtainFair, RedisLockRegistry::obtainFair),

		WRITER_REFUSES_WRITER(":write", Contention::write, Contention::write),

		WRITER_REFUSES_READER(":write", Contention::write, Contention::read),

		READER_REFUSES_WRITER(":readers", Contention::read, Contention::write);

		final String heldKeySuffix;

		final BiFunction<RedisLockRegistry, String, DistLock> holder;

		final BiFunction<RedisLockRegistry, String, DistLock> contender;

		Contention(String heldKeySuffix, BiFunction<RedisLockRegistry, String, DistLock> holder,
				BiFunction<RedisLockRegistry, String, DistLock> contender) {
			this.heldKeySuffix = heldKeySuffix;
			this.holder = holder;
			this.contender = contender;
		}

		private static DistLock write(RedisLockRegistry registry, String key) {
			return registry.obtainReadWrite(key).writeLock();
		}

		private static DistLock read(RedisLockRegistry registry, String key) {
			return registry.obtainReadWrite(key).readLock();
		}

	}

}

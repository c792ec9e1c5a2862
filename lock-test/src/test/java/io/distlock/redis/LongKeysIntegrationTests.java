package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import reactor.core.publisher.Mono;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockKeyException;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Catalogue B6: huge keys. A key longer than the limit (512 UTF-8 bytes by default) is refused
 * with a {@link LockKeyException} before anything reaches Redis, by the registry's own methods;
 * with long keys digested, 10 KB and 1 MB keys lock as their start and SHA-256 digest, equal keys
 * giving equal locks and different ones different locks.
 */
@Timeout(60)
class LongKeysIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private RedisLockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
		redis.server().flushAll();
	}

	@Test
	void aKeyLongerThanTheLimitIsRefusedWhicheverWayItIsAskedFor() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory()).build();
		String key = "a".repeat(513);
		String message = "Lock key of 513 bytes is longer than the longest key, 512 bytes (distlock.max-key-bytes): "
				+ "shorten it, lock on a digest of it, or set distlock.hash-long-keys=true. It starts with '"
				+ "a".repeat(64) + "'";
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> this.registry.acquire(key, Duration.ZERO))
			.withMessage(message);
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> this.registry.obtain(key))
			.withMessage(message);
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> this.registry.obtainMulti("short", key))
			.withMessage(message);
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> this.registry.acquireAsync(LockRequest.of(key)).toCompletableFuture().join())
			.withCauseInstanceOf(LockKeyException.class);
		assertThat(redis.server().template().keys("*")).isEmpty();
	}

	/**
	 * Two processes with digested long keys whose limits differ (a rolling deploy that raises
	 * {@code distlock.max-key-bytes}) lock a key between the two limits under two different Redis
	 * keys: one digests it, the other does not, and both hold "the" lock at once.
	 */
	@Test
	@Disabled("distlock bug: the Redis key of a key between two processes' max-key-bytes depends on each process's "
			+ "limit, so the processes do not exclude each other; a design question (a digest threshold that no "
			+ "setting moves, or a documented rule that every process must share the limit)")
	void processesWithDifferentKeyLimitsStillExcludeEachOther() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory())
			.maxKeyBytes(512)
			.hashLongKeys(true)
			.build();
		RedisLockRegistry raised = RedisLockRegistry.builder(redis.server().connectionFactory())
			.maxKeyBytes(1_024)
			.hashLongKeys(true)
			.build();
		try {
			String key = "order:" + "a".repeat(600);
			try (LockLease held = this.registry.acquire(key, Duration.ZERO)) {
				assertThat(raised.tryAcquire(key, Duration.ZERO)).as("the same key in another process")
					.isEmpty();
			}
		}
		finally {
			raised.close();
		}
	}

	@Test
	void theLimitCountsUtf8BytesNotCharacters() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory()).build();
		// 'é' is two bytes: 256 of them are 512 bytes, one more is too many.
		try (LockLease lease = this.registry.acquire("é".repeat(256), Duration.ZERO)) {
			assertThat(lease.key()).isEqualTo("é".repeat(256));
		}
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> this.registry.acquire("é".repeat(257), Duration.ZERO))
			.withMessageStartingWith("Lock key of 514 bytes");
		try (LockLease lease = this.registry.acquire("a".repeat(512), Duration.ZERO)) {
			assertThat(lease.key()).hasSize(512);
		}
	}

	@Test
	void longKeysCanBeDigestedEqualKeysGivingEqualLocks() throws Exception {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory()).hashLongKeys(true).build();
		for (int size : new int[] { 10 * 1024, 1024 * 1024 }) {
			String key = "order:" + "x".repeat(size);
			String sameStartOtherKey = "order:" + "x".repeat(size - 1) + "y";
			try (RedisLockRegistry other = RedisLockRegistry.builder(redis.server().connectionFactory())
				.hashLongKeys(true)
				.build(); LockLease lease = this.registry.acquire(key, Duration.ZERO)) {
				String digest = HexFormat.of()
					.formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
				assertThat(lease.key()).isEqualTo(key.substring(0, 64) + "#sha256:" + digest);
				assertThat(redis.server().template().hasKey("distlock:{" + lease.key() + "}")).isTrue();
				Optional<LockLease> same = other.tryAcquire(new String(key.toCharArray()), Duration.ZERO);
				assertThat(same).as("the same long key from another instance").isEmpty();
				Optional<LockLease> different = other.tryAcquire(sameStartOtherKey, Duration.ZERO);
				assertThat(different).as("another long key with the same start").isPresent();
				different.get().release();
			}
		}
	}

	@Test
	void aKeyWrittenInDigestFormIsDigestedTooSoItCannotTakeALongKeysLock() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory()).hashLongKeys(true).build();
		String longKey = "x".repeat(1000);
		try (LockLease lease = this.registry.acquire(longKey, Duration.ZERO)) {
			String written = lease.key();
			assertThat(written).contains("#sha256:");
			try (LockLease other = this.registry.acquire(written, Duration.ZERO)) {
				assertThat(other.key()).isNotEqualTo(written).startsWith(written.substring(0, 64) + "#sha256:");
			}
		}
	}

	@Test
	void aDigestedKeyKeepsItsStartWithoutSplittingACharacter() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory()).hashLongKeys(true).build();
		// Four bytes each: 16 fit the 64 bytes kept. Three bytes each: 21.
		try (LockLease lease = this.registry.acquire("😀".repeat(200), Duration.ZERO)) {
			assertThat(lease.key()).startsWith("😀".repeat(16) + "#sha256:");
		}
		try (LockLease lease = this.registry.acquire("€".repeat(200), Duration.ZERO)) {
			assertThat(lease.key()).startsWith("€".repeat(21) + "#sha256:");
		}
	}

	@Test
	void aNestedReactiveHoldOfADigestedKeyReEntersIt() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory()).hashLongKeys(true).build();
		String key = "k".repeat(10_000);
		LockRequest once = LockRequest.of(key).waitTime(Duration.ZERO);
		String inner = ReactiveLocks
			.withLock(this.registry, once,
					(outer) -> ReactiveLocks.withLock(this.registry, once, (nested) -> Mono.just(nested.key())))
			.block(Duration.ofSeconds(10));
		assertThat(inner).startsWith("k".repeat(64) + "#sha256:");
	}

	@Test
	void aLimitOutOfRangeIsRefusedWhenBuilt() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedisLockRegistry.builder(redis.server().connectionFactory()).maxKeyBytes(100).build())
			.withMessage("maxKeyBytes must be between 256 and 1048576 but was '100'");
	}

}

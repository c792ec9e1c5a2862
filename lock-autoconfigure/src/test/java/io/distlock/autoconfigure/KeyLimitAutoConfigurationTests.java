package io.distlock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockKeyException;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.core.LockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Catalogue B6 through the starter: {@code distlock.max-key-bytes} and
 * {@code distlock.hash-long-keys} reach the registry, and a limit out of range fails startup
 * naming the property.
 */
class KeyLimitAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void theLimitReachesTheRegistry() {
		DistlockRunners.withRedis(redis.server()).withPropertyValues("distlock.max-key-bytes=300").run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> registry.acquire("k".repeat(301), Duration.ZERO))
				.withMessageStartingWith("Lock key of 301 bytes is longer than the longest key, 300 bytes");
			registry.acquire("k".repeat(300), Duration.ZERO).release();
		});
	}

	@Test
	void longKeysCanBeDigested() {
		DistlockRunners.withRedis(redis.server()).withPropertyValues("distlock.hash-long-keys=true").run((context) -> {
			try (LockLease lease = context.getBean(LockRegistry.class).acquire("k".repeat(10_000), Duration.ZERO)) {
				assertThat(lease.key()).startsWith("k".repeat(64) + "#sha256:").hasSize(64 + 8 + 64);
			}
		});
	}

	@Test
	void aTooLongKeyAmongSeveralFailsTheCallBeforeAnyKeyIsTaken() {
		DistlockRunners.withRedis(redis.server()).withBean("twoKeys", TwoKeys.class).run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			// 'a' sorts first; it is held elsewhere, so taking it first would fail on contention.
			try (LockLease held = registry.acquireAsync(LockRequest.of("a").ownedByThread(false))
				.toCompletableFuture()
				.join()) {
				assertThatExceptionOfType(LockKeyException.class)
					.isThrownBy(() -> context.getBean(TwoKeys.class).run("z".repeat(600)))
					.withMessageStartingWith("Lock key of 600 bytes");
			}
		});
	}

	static class TwoKeys {

		@DistributedLock(keys = { "'a'", "#longKey" }, waitTime = "0s")
		public void run(String longKey) {
		}

	}

}

package io.distlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keyspace-event loss detection against real servers: refused at build when the server does not
 * emit the events, and a holder told of an administrator's {@code DEL} long before its next
 * renewal when it does. The latency figures over many trials are the fault suite's (T37).
 */
@Timeout(60)
class KeyspaceEventsIntegrationTests {

	@Test
	void aServerThatEmitsNoKeyeventsIsRefusedAtBuildNamingWhatToSet() {
		try (RedisServer redis = RedisServer.start()) {
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> RedisLockRegistry.builder(redis.connectionFactory()).keyspaceEvents(true).build())
				.withMessageContaining("distlock.loss-detection.keyspace-events")
				.withMessageContaining("notify-keyspace-events is ''")
				.withMessageContaining("Egxe");
		}
	}

	@Test
	void anAdministratorsDeleteReachesTheHolderBeforeItsNextRenewal() throws Exception {
		try (RedisServer redis = RedisServer.start("--notify-keyspace-events", "Egxe");
				RedisLockRegistry registry = RedisLockRegistry.builder(redis.connectionFactory())
					.keyspaceEvents(true)
					.build()) {
			String key = "keyspace:" + UUID.randomUUID();
			LockLease lease = registry.acquire(key, Duration.ZERO);
			CountDownLatch lost = new CountDownLatch(1);
			lease.onLost((ex) -> lost.countDown());
			// A release by another holder of another key is no loss of ours.
			registry.acquire(key + ":other", Duration.ZERO).release();
			redis.template().delete(registry.getKeyPrefix() + "{" + key + "}");
			// The lease is 30s and renewed every 10s: only the event can tell the holder this soon.
			assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(lease.isValid()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
			LockLease next = registry.acquire(key, Duration.ZERO);
			next.release();
			assertThat(registry.getLossStatistics().lostCount()).isEqualTo(1);
		}
	}

}

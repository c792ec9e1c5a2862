package io.distlock.redis;

import java.time.Duration;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockReplicationException;
import io.distlock.metrics.MicrometerLockListener;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A primary with one replica: with replica acknowledgement, a grant counts only once the replica
 * has it; a replica that does not answer makes the acquisition fail and the grant is given back.
 * Without it, the grant succeeds while the replica lags, which is the failover hole.
 */
@Timeout(60)
class ReplicaAcknowledgementIntegrationTests {

	private static RedisServer primary;

	private static RedisServer replica;

	@BeforeAll
	static void startPrimaryAndReplica() {
		primary = RedisServer.start();
		replica = RedisServer.start("--replicaof", primary.host(), Integer.toString(primary.port()));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> "up".equals(replication(replica).getProperty("master_link_status")));
	}

	@AfterAll
	static void stop() {
		replica.close();
		primary.close();
	}

	@Test
	void aGrantCountsOnceTheReplicaAcknowledgesIt() {
		try (RedisLockRegistry registry = RedisLockRegistry.builder(primary.connectionFactory())
			.replicaAcknowledgement(1, Duration.ofMillis(500))
			.build()) {
			String key = "ack:" + UUID.randomUUID();
			try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
				assertThat(replica.template().hasKey("distlock:{" + key + "}")).isTrue();
			}
		}
	}

	@Test
	void aReplicaThatDoesNotAcknowledgeFailsTheAcquisitionAndTheGrantIsGivenBack() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		try (RedisLockRegistry registry = RedisLockRegistry.builder(primary.connectionFactory())
			.replicaAcknowledgement(1, Duration.ofMillis(300))
			.listener(new MicrometerLockListener(meters))
			.build()) {
			String key = "ack:" + UUID.randomUUID();
			replica.pause();
			long start = System.nanoTime();
			try {
				// A wait of seconds: a failed acknowledgement fails at once, and a wait of zero gives the
				// answer only 150 ms past the 300 ms timeout, which a loaded machine can overrun.
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> registry.acquire(key, Duration.ofSeconds(5)))
					.withRootCauseInstanceOf(LockReplicationException.class)
					.withMessageContaining("acknowledged by 0 of 1 required replicas within 300ms");
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 2_000L);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> !primary.template().hasKey("distlock:{" + key + "}"));
			}
			finally {
				replica.resume();
			}
			assertThat(meters.get("distlock.acquire").tag("outcome", "unreplicated").timer().count()).isEqualTo(1);
		}
	}

	@Test
	void withoutAcknowledgementAGrantSucceedsWhileTheReplicaLags() {
		try (RedisLockRegistry registry = new RedisLockRegistry(primary.connectionFactory())) {
			String key = "no-ack:" + UUID.randomUUID();
			replica.pause();
			try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
				// Granted although no replica has it: a failover now would lose this lock.
				assertThat(lease.isValid()).isTrue();
			}
			finally {
				replica.resume();
			}
		}
	}

	private static Properties replication(RedisServer server) {
		return server.template().execute((RedisCallback<Properties>) (RedisConnection connection) -> connection
			.serverCommands()
			.info("replication"));
	}

}

package io.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;
import io.distlock.redlock.RedlockRegistry;
import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.LoopbackConnectionFactories;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redlock release that a quorum cannot confirm: three nodes, the holder reaching them through
 * proxies, two of them black-holed when it releases. The release neither throws nor reports the
 * lock lost; it reports {@code FAILED} (docs/topologies.md: "a release ends with a warning while
 * the keys expire with their lease"), and the key is free again by the end of its lease.
 */
@Tag("fault")
@Timeout(60)
class RedlockReleaseFaultIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(5);

	private final List<RedisServer> nodes = new ArrayList<>();

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<LockListener.ReleaseOutcome> outcomes = new CopyOnWriteArrayList<>();

	private RedlockRegistry holder;

	private RedlockRegistry competitor;

	@BeforeEach
	void startThreeNodes() {
		List<LettuceConnectionFactory> throughProxies = new ArrayList<>();
		List<LettuceConnectionFactory> direct = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RedisServer node = RedisServer.start();
			FaultProxy proxy = FaultProxy.start(node.host(), node.port());
			this.nodes.add(node);
			this.proxies.add(proxy);
			throughProxies.add(factory(proxy.port()));
			direct.add(factory(node.port()));
		}
		this.holder = RedlockRegistry.builder(throughProxies)
			.perNodeTimeout(Duration.ofMillis(200))
			.listener(new LockListener() {

				@Override
				public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
					RedlockReleaseFaultIntegrationTests.this.outcomes.add(outcome);
				}

			})
			.build();
		this.competitor = RedlockRegistry.builder(direct).perNodeTimeout(Duration.ofMillis(200)).build();
	}

	@AfterEach
	void stop() {
		this.holder.close();
		this.competitor.close();
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.proxies.forEach(FaultProxy::close);
		this.nodes.forEach(RedisServer::close);
	}

	@Test
	void aReleaseAQuorumCannotConfirmReportsFailedAndTheKeyIsFreeByTheEndOfItsLease() {
		String key = "release:" + UUID.randomUUID();
		long grantedAt = System.nanoTime();
		LockLease lease = this.holder.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(LEASE));
		await().atMost(Duration.ofSeconds(2))
			.until(() -> this.nodes.stream().allMatch((node) -> Boolean.TRUE.equals(node.template().hasKey(lockKey(key)))));
		this.proxies.get(1).mode(FaultProxy.Mode.BLACKHOLE);
		this.proxies.get(2).mode(FaultProxy.Mode.BLACKHOLE);
		long releaseStart = System.nanoTime();
		lease.release();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releaseStart)).as("release bounded")
			.isLessThan(3_000);
		assertThat(this.outcomes).containsExactly(LockListener.ReleaseOutcome.FAILED);
		assertThat(lease.isValid()).isFalse();
		assertThat(this.holder.localKeyCount()).isZero();
		assertThat(this.nodes.get(0).template().hasKey(lockKey(key))).as("released where it was heard").isFalse();
		for (FaultProxy proxy : this.proxies) {
			proxy.mode(FaultProxy.Mode.RESET);
			proxy.mode(FaultProxy.Mode.PASS);
		}
		// The silent nodes' keys go when their lease ends, or earlier if the driver re-sends the
		// release once it reconnects (owner-compared either way): never later.
		try (LockLease next = this.competitor.acquire(key, Duration.ofSeconds(15))) {
			long afterGrantMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt);
			assertThat(afterGrantMillis).as("granted by the end of the first grant's lease")
				.isLessThan(LEASE.toMillis() + 5_000);
			assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
		}
	}

	private LettuceConnectionFactory factory(int port) {
		LettuceConnectionFactory factory = LoopbackConnectionFactories.start(port, Duration.ofSeconds(2));
		this.factories.add(factory);
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
			try (RedisConnection connection = factory.getConnection()) {
				return "PONG".equals(connection.ping());
			}
		});
		return factory;
	}

	private static String lockKey(String key) {
		return "distlock:{" + key + "}";
	}

}

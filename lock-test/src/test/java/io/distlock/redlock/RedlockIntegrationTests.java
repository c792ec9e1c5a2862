package io.distlock.redlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockLease;
import io.distlock.test.process.CounterWorkers;
import io.distlock.test.redis.RedisNodesExtension;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Redlock over five real {@code redis-server} processes: a grant needs a quorum, every subset of
 * stopped or taken nodes is tried, renewal needs a quorum, and a node that restarted empty gets
 * the key back. The tests that stop, kill or restart nodes (T25, T30, the empty restart) are
 * tagged {@code fault}: they run in {@code ./mvnw -Pfaults verify}, the others in the default
 * build.
 */
@Timeout(180)
class RedlockIntegrationTests {

	private static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(100);

	@RegisterExtension
	static final RedisNodesExtension redlock = new RedisNodesExtension(5, PER_NODE_TIMEOUT);

	@RegisterExtension
	final LockRegistries registries = new LockRegistries();

	@AfterEach
	void closeRegistries() {
		for (RedisServer server : redlock.servers()) {
			if (server.isPaused()) {
				server.resume();
			}
			if (!server.isRunning()) {
				server.restart();
			}
		}
	}

	@ParameterizedTest(name = "N = {0}")
	@ValueSource(ints = { 3, 5 })
	@Tag("fault")
	void acquiresIfAndOnlyIfAQuorumOfNodesIsFree(int n) throws Exception {
		RedlockRegistry registry = registry(n, Duration.ofSeconds(2));
		// Warm every node's connection and scripts, so that no case pays for a first connection.
		registry.acquire("warm-up:" + UUID.randomUUID(), Duration.ZERO).release();
		int quorum = n / 2 + 1;
		int checked = 0;
		for (int mask = 0; mask < (1 << n); mask++) {
			int unavailable = Integer.bitCount(mask);
			boolean expected = n - unavailable >= quorum;
			for (boolean stop : new boolean[] { true, false }) {
				String key = "quorum:" + UUID.randomUUID();
				applyFault(mask, n, key, stop);
				long start = System.nanoTime();
				Optional<LockLease> lease;
				try {
					lease = registry.tryAcquire(key, Duration.ZERO);
				}
				catch (LockAcquisitionException ex) {
					// Too few nodes answered to decide: not acquired.
					lease = Optional.empty();
				}
				long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				String caseName = "N=" + n + " mask=" + Integer.toBinaryString(mask) + (stop ? " stopped" : " taken");
				assertThat(lease.isPresent()).as(caseName).isEqualTo(expected);
				if (stop && unavailable > 0) {
					// Parallel: the stopped nodes cost the per-node timeout once, not each.
					assertThat(tookMillis).as(caseName + " latency").isLessThan(PER_NODE_TIMEOUT.toMillis() + 400);
				}
				lease.ifPresent(LockLease::release);
				clearFault(mask, n, stop);
				if (!expected) {
					for (int node = 0; node < n; node++) {
						RedisServer server = redlock.node(node);
						// A node that answered late is given back in the background: allow for it.
						await().atMost(Duration.ofSeconds(2))
							.untilAsserted(() -> assertThat(server.template().opsForValue().get("distlock:{" + key + "}"))
								.as(caseName + ": none of our keys left")
								.isIn(null, "foreign"));
					}
				}
				checked++;
			}
		}
		assertThat(checked).isEqualTo(2 * (1 << n));
	}

	@Test
	@Tag("fault")
	void renewalNeedsAQuorumAndLosingItIsSignalled() throws Exception {
		RedlockRegistry registry = registry(3, Duration.ofSeconds(1));
		String key = "renew:" + UUID.randomUUID();
		LockLease lease = registry.acquire(key, Duration.ZERO);
		AtomicInteger lost = new AtomicInteger();
		CompletableFuture<Long> lostAt = new CompletableFuture<>();
		lease.onLost((ex) -> {
			lost.incrementAndGet();
			lostAt.complete(System.nanoTime());
		});
		redlock.node(2).pause();
		// T30: ten leases with one node of three stopped; the renewals keep a majority.
		Thread.sleep(10_000);
		assertThat(lease.isValid()).as("valid for ten leases with one node of three stopped").isTrue();
		assertThat(lost).hasValue(0);
		long stoppedAt = System.nanoTime();
		redlock.node(1).pause();
		long detectedMillis = TimeUnit.NANOSECONDS.toMillis(lostAt.get(5, TimeUnit.SECONDS) - stoppedAt);
		assertThat(detectedMillis).isLessThanOrEqualTo(1_000 + 250);
		redlock.node(1).resume();
		redlock.node(2).resume();
	}

	@Test
	@Tag("fault")
	void aNodeThatRestartedEmptyGetsTheKeyBackAtTheNextRenewal() throws Exception {
		RedlockRegistry registry = registry(3, Duration.ofSeconds(1));
		String key = "recreate:" + UUID.randomUUID();
		try (LockLease lease = registry.acquire(key, Duration.ZERO)) {
			RedisServer node = redlock.node(0);
			node.kill();
			node.restart();
			assertThat(node.template().hasKey("distlock:{" + key + "}")).isFalse();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (!Boolean.TRUE.equals(node.template().hasKey("distlock:{" + key + "}"))
					&& System.nanoTime() < deadline) {
				Thread.sleep(50);
			}
			assertThat(node.template().hasKey("distlock:{" + key + "}")).isTrue();
			assertThat(lease.isValid()).isTrue();
		}
	}

	@Test
	void aReleaseRacingARenewalLeavesNoKeyBehind() throws Exception {
		// Lease 300 ms: renewals every 100 ms, so holds of 80 to 120 ms often end while one is on
		// its way. A renewal that re-created a key the release had just deleted would leave it.
		RedlockRegistry registry = registry(3, Duration.ofMillis(300));
		for (int i = 0; i < 40; i++) {
			String key = "race:" + UUID.randomUUID();
			LockLease lease = registry.acquire(key, Duration.ofSeconds(1));
			Thread.sleep(80 + java.util.concurrent.ThreadLocalRandom.current().nextInt(40));
			lease.release();
			Thread.sleep(150);
			for (int node = 0; node < 3; node++) {
				assertThat(redlock.node(node).template().hasKey("distlock:{" + key + "}")).as("node " + node + " cycle " + i)
					.isFalse();
			}
		}
	}

	@Test
	void fencingTokensGrowAcrossGrants() {
		RedlockRegistry registry = registry(5, Duration.ofSeconds(2));
		String key = "tokens:" + UUID.randomUUID();
		long previous = 0;
		for (int i = 0; i < 20; i++) {
			try (LockLease lease = registry.acquire(key, Duration.ofSeconds(2))) {
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
			}
		}
	}

	@Test
	void twoJvmsOfFourThreadsKeepTheCounterExactUnderRedlock() throws Exception {
		String counterKey = "redlock-counter:" + UUID.randomUUID();
		redlock.node(0).template().opsForValue().set(counterKey, "0");
		String ports = String.join(",",
				redlock.servers().subList(0, 3).stream().map((s) -> Integer.toString(s.port())).toList());
		String lockKey = "redlock-fuzz:" + UUID.randomUUID();
		CounterWorkers.runTwo(ports, lockKey, counterKey, 25, "redlock", Duration.ofSeconds(120));
		assertThat(redlock.node(0).template().opsForValue().get(counterKey)).isEqualTo(Integer.toString(2 * 4 * 25));
	}

	@Test
	void invalidConfigurationsAreRefusedNamingTheOption() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedlockRegistry.builder(List.of()).build())
			.withMessage("Redlock needs at least one node");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedlockRegistry
				.builder(List.of(redlock.connectionFactories().get(0), redlock.connectionFactories().get(0)))
				.build())
			.withMessageContaining("is listed twice");
		String uri = "redis://127.0.0.1:" + redlock.node(0).port();
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedlockRegistry.builderForUris(List.of(uri, uri + "/0")).build())
			.withMessageContaining("is listed twice");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(
					() -> RedlockRegistry.builder(redlock.connectionFactories().subList(0, 3)).driftFactor(0.5).build())
			.withMessage("driftFactor must be in (0, 0.1] but was '0.5'");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> RedlockRegistry.builder(redlock.connectionFactories().subList(0, 3))
				.leaseTime(Duration.ofMillis(100))
				.perNodeTimeout(Duration.ofMillis(100))
				.build())
			.withMessageContaining("must be longer than perNodeTimeout + drift + minValidity");
		Throwable fair = catchThrowable(() -> registry(3, Duration.ofSeconds(2)).obtainFair("x"));
		assertThat(fair).isInstanceOf(LockConfigurationException.class);
	}

	@Test
	void nodesGivenAsUrisWork() {
		List<String> uris = redlock.servers().subList(0, 3)
			.stream()
			.map((server) -> "redis://" + server.host() + ":" + server.port())
			.toList();
		try (RedlockRegistry registry = RedlockRegistry.builderForUris(uris).build()) {
			assertThat(registry.getQuorum()).isEqualTo(2);
			registry.acquire("uris:" + UUID.randomUUID(), Duration.ZERO).release();
		}
	}

	private RedlockRegistry registry(int n, Duration leaseTime) {
		return this.registries.add(RedlockRegistry.builder(redlock.connectionFactories().subList(0, n))
			.perNodeTimeout(PER_NODE_TIMEOUT)
			.leaseTime(leaseTime)
			.build());
	}

	private static void applyFault(int mask, int n, String key, boolean stop) {
		for (int node = 0; node < n; node++) {
			if ((mask & (1 << node)) != 0) {
				if (stop) {
					redlock.node(node).pause();
				}
				else {
					redlock.node(node).template().opsForValue().set("distlock:{" + key + "}", "foreign",
							Duration.ofSeconds(10));
				}
			}
		}
	}

	private static void clearFault(int mask, int n, boolean stop) {
		if (!stop) {
			return;
		}
		for (int node = 0; node < n; node++) {
			if ((mask & (1 << node)) != 0) {
				redlock.node(node).resume();
			}
		}
	}

}

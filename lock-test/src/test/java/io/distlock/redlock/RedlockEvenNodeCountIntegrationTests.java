package io.distlock.redlock;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.distlock.core.LockLease;
import io.distlock.test.redis.RedisNodesExtension;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redlock over an even number of real {@code redis-server} processes: half of the nodes is not a
 * majority. Every subset of nodes is made to hold the key for another owner; a grant comes
 * exactly when more than half are free, and a refused attempt leaves none of its keys and every
 * other owner's key as it was.
 */
@Timeout(120)
class RedlockEvenNodeCountIntegrationTests {

	private static final String OTHER = "another-process:grant";

	@RegisterExtension
	static final RedisNodesExtension redlock = new RedisNodesExtension(4, Duration.ofSeconds(2));

	@RegisterExtension
	final LockRegistries registries = new LockRegistries();

	@ParameterizedTest(name = "N = {0}")
	@ValueSource(ints = { 2, 4 })
	void aGrantNeedsMoreThanHalfOfTheNodes(int n) {
		RedlockRegistry registry = RedlockRegistry.builder(redlock.connectionFactories().subList(0, n))
			.perNodeTimeout(Duration.ofMillis(200))
			.leaseTime(Duration.ofSeconds(5))
			.build();
		this.registries.add(registry);
		assertThat(registry.getQuorum()).isEqualTo(n / 2 + 1);
		for (int mask = 0; mask < (1 << n); mask++) {
			String key = "even:" + UUID.randomUUID();
			int taken = Integer.bitCount(mask);
			boolean expected = n - taken > n / 2;
			String caseName = "N=" + n + " taken=" + Integer.toBinaryString(mask);
			for (int node = 0; node < n; node++) {
				if ((mask & (1 << node)) != 0) {
					redlock.node(node).template().opsForValue().set(lockKey(key), OTHER);
				}
			}
			Optional<LockLease> lease = registry.tryAcquire(key, Duration.ZERO);
			assertThat(lease.isPresent()).as(caseName).isEqualTo(expected);
			lease.ifPresent(LockLease::release);
			for (int node = 0; node < n; node++) {
				boolean othersNode = (mask & (1 << node)) != 0;
				RedisServer server = redlock.node(node);
				// A refused attempt is given back in the background: allow for it.
				await().pollDelay(Duration.ZERO)
					.pollInterval(Duration.ofMillis(10))
					.atMost(Duration.ofSeconds(2))
					.untilAsserted(() -> assertThat(server.template().opsForValue().get(lockKey(key)))
						.as(caseName + ": node " + redlock.servers().indexOf(server) + " after the attempt")
						.isEqualTo(othersNode ? OTHER : null));
			}
		}
	}

	private static String lockKey(String key) {
		return "distlock:{" + key + "}";
	}

}

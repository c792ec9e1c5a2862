package io.distlock.sample.inventory;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances schedule the reconciliation every second; the lock in skip mode with
 * {@code holdAtLeast} lets exactly one of them run each tick. Two instances that do not share a
 * Redis both run every tick: the negative control that shows the count can see a double run.
 */
@Timeout(60)
class ReconciliationJobIntegrationTests {

	private static final String EVERY_SECOND = "inventory.reconcile.cron=* * * * * *";

	private static final String HOLD = "inventory.reconcile.hold-at-least=800ms";

	@Test
	void runsOnExactlyOneInstancePerTick() throws Exception {
		Map<String, Integer> runsPerSecond = runTwoInstances(EVERY_SECOND, HOLD);
		assertThat(runsPerSecond).hasSizeGreaterThanOrEqualTo(3);
		assertThat(runsPerSecond.values()).allSatisfy((runs) -> assertThat(runs).isEqualTo(1));
	}

	@Test
	void negativeControlInstancesThatDoNotShareRedisBothRunEachTick() throws Exception {
		// A misconfiguration the count must be able to see: each instance locks in its own Redis.
		try (RedisServer separate = RedisServer.start()) {
			Map<String, Integer> runsPerSecond = runTwoInstances(new String[] { EVERY_SECOND, HOLD },
					new String[] { "spring.data.redis.port=" + separate.port() });
			assertThat(runsPerSecond.values()).anySatisfy((runs) -> assertThat(runs).isEqualTo(2));
		}
	}

	private Map<String, Integer> runTwoInstances(String... properties) throws Exception {
		return runTwoInstances(properties, new String[0]);
	}

	private Map<String, Integer> runTwoInstances(String[] properties, String[] secondOnly) throws Exception {
		String[] secondProperties = java.util.stream.Stream.concat(java.util.Arrays.stream(properties),
				java.util.Arrays.stream(secondOnly)).toArray(String[]::new);
		try (ConfigurableApplicationContext first = InventoryServers.start(false, properties);
				ConfigurableApplicationContext second = InventoryServers.start(false, secondProperties)) {
			List<String> instances = List.of(first.getEnvironment().getProperty("inventory.instance"),
					second.getEnvironment().getProperty("inventory.instance"));
			Thread.sleep(Duration.ofMillis(4_500).toMillis());
			first.stop();
			second.stop();
			JdbcClient jdbc = first.getBean(JdbcClient.class);
			return jdbc
				.sql("select to_char(date_trunc('second', started_at), 'HH24:MI:SS') as tick, count(*) as runs "
						+ "from reconciliation_run where instance in (:instances) group by tick")
				.param("instances", instances)
				.query((rs, row) -> Map.entry(rs.getString("tick"), rs.getInt("runs")))
				.list()
				.stream()
				.collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
		}
	}

}

package io.distlock.redlock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import io.distlock.core.LockLease;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What each deployment costs per uncontended acquire and release, measured side by side in one
 * run (interleaved rounds), for the README: a single Redis, a single Redis with replica
 * acknowledgement, and Redlock over 3 and 5 nodes. Writes {@code target/topology-cost.md}. It
 * asserts only that every cycle worked; the numbers are a report, not a bound.
 */
@Timeout(300)
class TopologyCostReportTests {

	private static final int ROUNDS = 5;

	private static final int CYCLES_PER_ROUND = 400;

	@Test
	void measuresEveryTopologySideBySide() throws Exception {
		List<RedisServer> servers = new ArrayList<>();
		List<LettuceConnectionFactory> factories = new ArrayList<>();
		Map<String, AbstractLockRegistry> registries = new LinkedHashMap<>();
		Map<String, List<RedisServer>> involved = new LinkedHashMap<>();
		try {
			for (int i = 0; i < 5; i++) {
				servers.add(RedisServer.start());
				factories.add(servers.get(i).newConnectionFactory(Duration.ofSeconds(2)));
			}
			RedisServer replica = RedisServer.start("--replicaof", servers.get(0).host(),
					Integer.toString(servers.get(0).port()));
			servers.add(replica);
			await().atMost(Duration.ofSeconds(20)).until(() -> "up".equals(info(replica, "replication")
				.getProperty("master_link_status")));
			registries.put("single node", new RedisLockRegistry(factories.get(0)));
			involved.put("single node", List.of(servers.get(0)));
			registries.put("single node + replica ack (WAIT 1)", RedisLockRegistry.builder(factories.get(0))
				.replicaAcknowledgement(1, Duration.ofMillis(500))
				.build());
			involved.put("single node + replica ack (WAIT 1)", List.of(servers.get(0)));
			registries.put("Redlock, 3 nodes", RedlockRegistry.builder(factories.subList(0, 3)).build());
			involved.put("Redlock, 3 nodes", servers.subList(0, 3));
			registries.put("Redlock, 5 nodes", RedlockRegistry.builder(factories.subList(0, 5)).build());
			involved.put("Redlock, 5 nodes", servers.subList(0, 5));

			Map<String, List<Long>> latencies = new LinkedHashMap<>();
			Map<String, Long> commands = new LinkedHashMap<>();
			for (String name : registries.keySet()) {
				run(registries.get(name), name, 200, new ArrayList<>());
				latencies.put(name, new ArrayList<>());
				commands.put(name, 0L);
			}
			for (int round = 0; round < ROUNDS; round++) {
				for (Map.Entry<String, AbstractLockRegistry> entry : registries.entrySet()) {
					long before = commandCount(involved.get(entry.getKey()));
					run(entry.getValue(), entry.getKey(), CYCLES_PER_ROUND, latencies.get(entry.getKey()));
					commands.merge(entry.getKey(), commandCount(involved.get(entry.getKey())) - before, Long::sum);
				}
			}
			StringBuilder table = new StringBuilder(
					"| deployment | p50 (µs) | p99 (µs) | cycles/s (one thread) | client commands per cycle (all nodes) |\n"
							+ "| --- | --- | --- | --- | --- |\n");
			for (String name : registries.keySet()) {
				long[] sorted = latencies.get(name).stream().mapToLong(Long::longValue).sorted().toArray();
				assertThat(sorted).hasSize(ROUNDS * CYCLES_PER_ROUND);
				double p50 = sorted[sorted.length / 2] / 1e3;
				double p99 = sorted[(int) (sorted.length * 0.99)] / 1e3;
				double mean = Arrays.stream(sorted).average().orElse(0) / 1e9;
				table.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.1f |%n", name, p50, p99,
						1 / mean, commands.get(name) / (double) (ROUNDS * CYCLES_PER_ROUND)));
			}
			Files.writeString(Path.of("target", "topology-cost.md"), table.toString());
			System.out.println(table);
		}
		finally {
			registries.values().forEach(AbstractLockRegistry::close);
			factories.forEach(LettuceConnectionFactory::destroy);
			servers.forEach(RedisServer::close);
		}
	}

	private static void run(AbstractLockRegistry registry, String name, int cycles, List<Long> latencies) {
		for (int i = 0; i < cycles; i++) {
			String key = "cost:" + name.hashCode() + ":" + i;
			long start = System.nanoTime();
			LockLease lease = registry.acquire(key, Duration.ZERO);
			lease.release();
			latencies.add(System.nanoTime() - start);
		}
	}

	private static long commandCount(List<RedisServer> servers) {
		// What clients send: scripts and WAIT. Commands run inside a script are counted by Redis
		// too, but cost no round trip.
		return servers.stream().mapToLong((server) -> server.commandCalls("evalsha", "eval", "wait")).sum();
	}

	private static Properties info(RedisServer server, String section) {
		return server.template()
			.execute((RedisCallback<Properties>) (RedisConnection connection) -> connection.serverCommands()
				.info(section));
	}

}

package io.distlock.test.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

/**
 * A real Redis Cluster of several masters on loopback, started by the test: each master owns an
 * equal range of the 16,384 hash slots. No replicas.
 *
 * <pre class="code">
 * try (RedisCluster cluster = RedisCluster.start(3)) {
 *     LettuceConnectionFactory factory = cluster.connectionFactory();
 * }
 * </pre>
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16_384;

	private final List<RedisServer> masters;

	private LettuceConnectionFactory connectionFactory;

	private RedisCluster(List<RedisServer> masters) {
		this.masters = masters;
	}

	/**
	 * Start a cluster and wait until it reports {@code cluster_state:ok}.
	 * @param masterCount how many masters, at least one
	 * @return the running cluster
	 */
	public static RedisCluster start(int masterCount) {
		List<RedisServer> masters = new ArrayList<>();
		try {
			for (int i = 0; i < masterCount; i++) {
				masters.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-node-timeout", "5000"));
			}
			for (int i = 0; i < masterCount; i++) {
				int from = SLOTS * i / masterCount;
				int to = SLOTS * (i + 1) / masterCount;
				List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
				for (int slot = from; slot < to; slot++) {
					command.add(Integer.toString(slot));
				}
				masters.get(i).command(command.toArray(String[]::new));
			}
			for (int i = 1; i < masterCount; i++) {
				masters.get(i).command("CLUSTER", "MEET", masters.get(0).host(), Integer.toString(masters.get(0).port()));
			}
			RedisCluster cluster = new RedisCluster(masters);
			cluster.awaitState();
			return cluster;
		}
		catch (RuntimeException ex) {
			masters.forEach(RedisServer::close);
			throw ex;
		}
	}

	/**
	 * Return the masters.
	 * @return the masters
	 */
	public List<RedisServer> masters() {
		return this.masters;
	}

	/**
	 * Return a started cluster connection factory, owned by the cluster (closed with it).
	 * @return the connection factory
	 */
	public synchronized LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			RedisClusterConfiguration configuration = new RedisClusterConfiguration(
					this.masters.stream().map((master) -> master.host() + ":" + master.port()).toList());
			LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
			factory.afterPropertiesSet();
			factory.start();
			this.connectionFactory = factory;
		}
		return this.connectionFactory;
	}

	@Override
	public synchronized void close() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		this.masters.forEach(RedisServer::close);
	}

	private void awaitState() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			if (this.masters.stream().allMatch(RedisCluster::isOk)) {
				return;
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		throw new IllegalStateException("Redis Cluster did not reach cluster_state:ok within 30s");
	}

	private static boolean isOk(RedisServer master) {
		byte[] info = master.template()
			.execute((RedisCallback<byte[]>) (RedisConnection connection) -> (byte[]) connection.execute("CLUSTER",
					"INFO".getBytes(StandardCharsets.US_ASCII)));
		String text = (info != null) ? new String(info, StandardCharsets.UTF_8) : "";
		return text.contains("cluster_state:ok") && text.contains("cluster_known_nodes:" + countNodes(master));
	}

	private static int countNodes(RedisServer master) {
		byte[] nodes = master.template()
			.execute((RedisCallback<byte[]>) (RedisConnection connection) -> (byte[]) connection.execute("CLUSTER",
					"NODES".getBytes(StandardCharsets.US_ASCII)));
		return (nodes != null) ? (int) new String(nodes, StandardCharsets.UTF_8).lines().count() : 0;
	}

}

package io.distlock.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import io.distlock.test.network.FaultProxy;

/**
 * A master, its replicas and three Sentinels (quorum 2) on loopback, started by the test: Redis
 * as a Sentinel deployment runs it, on real processes. A master that stops answering is
 * declared down after 1 s, so a failover takes a few seconds.
 * <p>
 * The first replica may follow the master through a {@link FaultProxy}
 * ({@link RedisSentinelGroupBuilder#replicationThroughProxy()}), so a test can hold the
 * replication stream back and fail over to a replica that lacks the latest writes, as
 * asynchronous replication allows. Sentinel repoints such a replica at the real master once the failover timeout has passed
 * since it found it, so a test using the proxy keeps that timeout longer than its scenario.
 *
 * <pre class="code">
 * try (RedisSentinelGroup group = RedisSentinelGroup.builder().replicas(1).start()) {
 *     LettuceConnectionFactory factory = group.newConnectionFactory(Duration.ofSeconds(2));
 *     group.master().kill();
 *     RedisServer promoted = group.awaitNewMaster();
 * }
 * </pre>
 */
public final class RedisSentinelGroup implements AutoCloseable {

	/** The name the sentinels monitor the master under. */
	public static final String MASTER_NAME = "distlock";

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<RedisSentinel> sentinels = new ArrayList<>();

	private FaultProxy replicationLink;

	private RedisServer master;

	private RedisSentinelGroup() {
	}

	/**
	 * Start describing a group.
	 * @return a builder: one replica, a 10 s failover timeout, no proxy
	 */
	public static RedisSentinelGroupBuilder builder() {
		return new RedisSentinelGroupBuilder();
	}

	/**
	 * Return the server the sentinels currently name as master; {@link #awaitNewMaster()}
	 * moves it after a failover.
	 * @return the master
	 */
	public synchronized RedisServer master() {
		return this.master;
	}

	/**
	 * Return every data server: the first master, then the replicas in start order.
	 * @return the servers
	 */
	public List<RedisServer> servers() {
		return List.copyOf(this.servers);
	}

	/**
	 * Return the sentinels.
	 * @return the three sentinels
	 */
	public List<RedisSentinel> sentinels() {
		return List.copyOf(this.sentinels);
	}

	/**
	 * Return the proxy the first replica replicates through.
	 * @return the proxy
	 * @throws IllegalStateException if the group was started without one
	 */
	public FaultProxy replicationLink() {
		if (this.replicationLink == null) {
			throw new IllegalStateException("The group was started without replicationThroughProxy()");
		}
		return this.replicationLink;
	}

	/**
	 * Return the sentinel configuration an application would use.
	 * @return the configuration: master name and the three sentinels
	 */
	public RedisSentinelConfiguration sentinelConfiguration() {
		Set<String> addresses = new HashSet<>();
		this.sentinels.forEach((sentinel) -> addresses.add("127.0.0.1:" + sentinel.port()));
		return new RedisSentinelConfiguration(MASTER_NAME, addresses);
	}

	/**
	 * Return a new started connection factory that finds the master through the sentinels, as
	 * an application's does; the caller destroys it.
	 * @param commandTimeout how long a command may take
	 * @return the connection factory
	 */
	public LettuceConnectionFactory newConnectionFactory(Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(sentinelConfiguration(),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Ask a sentinel for a manual failover ({@code SENTINEL FAILOVER}): the master stays up and
	 * a replica is promoted without the others' agreement. Returns at once; see
	 * {@link #awaitNewMaster()}.
	 */
	public void failover() {
		this.sentinels.get(0).commands().failover(MASTER_NAME);
	}

	/**
	 * Wait until every sentinel names another master than {@link #master()} and that server
	 * says it is one, then make it {@link #master()}.
	 * @return the new master
	 * @throws IllegalStateException if no failover completes within 30 s
	 */
	public synchronized RedisServer awaitNewMaster() {
		int old = this.master.port();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			try {
				Set<Integer> named = new HashSet<>();
				for (RedisSentinel sentinel : this.sentinels) {
					named.add(sentinel.masterPort(MASTER_NAME));
				}
				if (named.size() == 1 && !named.contains(old)) {
					RedisServer promoted = server(named.iterator().next());
					if ("master".equals(replication(promoted).getProperty("role"))) {
						this.master = promoted;
						return promoted;
					}
				}
			}
			catch (RuntimeException ex) {
				// Sentinel closes the clients of a server it reconfigures: ask again.
			}
			pause();
		}
		throw new IllegalStateException("No failover away from port " + old + " within 30s; sentinel log:\n"
				+ this.sentinels.get(0).log());
	}

	/**
	 * Return a server's {@code INFO replication} fields, such as {@code role} and
	 * {@code master_link_status}.
	 * @param server a server of this group
	 * @return the fields
	 */
	public static Properties replication(RedisServer server) {
		return server.template()
			.execute((RedisCallback<Properties>) (RedisConnection connection) -> connection.serverCommands()
				.info("replication"));
	}

	/**
	 * Stop the sentinels first (so that none fails over while the group goes down), then the
	 * servers and the proxy.
	 */
	@Override
	public void close() {
		this.sentinels.forEach(RedisSentinel::close);
		this.servers.forEach(RedisServer::close);
		if (this.replicationLink != null) {
			this.replicationLink.close();
		}
	}

	/** Start a group as its builder describes it. */
	static RedisSentinelGroup start(int replicas, boolean replicationThroughProxy, Duration failoverTimeout) {
		RedisSentinelGroup group = new RedisSentinelGroup();
		try {
			RedisServer master = RedisServer.start();
			group.servers.add(master);
			group.master = master;
			for (int i = 0; i < replicas; i++) {
				int port = master.port();
				if (i == 0 && replicationThroughProxy) {
					group.replicationLink = FaultProxy.start(master.host(), master.port());
					port = group.replicationLink.port();
				}
				RedisServer replica = RedisServer.start("--replicaof", master.host(), Integer.toString(port));
				group.servers.add(replica);
			}
			// Sentinels learn the replicas from the master's first INFO: connected replicas only.
			group.servers.subList(1, group.servers.size()).forEach(RedisSentinelGroup::awaitLinkUp);
			List<String> configuration = List.of(
					"sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2",
					"sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
					"sentinel failover-timeout " + MASTER_NAME + " " + failoverTimeout.toMillis(),
					"sentinel parallel-syncs " + MASTER_NAME + " 1");
			for (int i = 0; i < 3; i++) {
				group.sentinels.add(RedisSentinel.start(master.binary(), configuration));
			}
			group.awaitReady(replicas);
			return group;
		}
		catch (RuntimeException ex) {
			group.close();
			throw ex;
		}
	}

	private RedisServer server(int port) {
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Sentinels name port " + port + ", not a server of this group"));
	}

	private void awaitReady(int replicas) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			boolean ready = true;
			for (RedisSentinel sentinel : this.sentinels) {
				Map<String, String> state = sentinel.master(MASTER_NAME);
				ready &= Integer.parseInt(state.get("num-slaves")) == replicas
						&& Integer.parseInt(state.get("num-other-sentinels")) == this.sentinels.size() - 1
						&& "master".equals(state.get("flags"));
			}
			if (ready) {
				return;
			}
			pause();
		}
		throw new IllegalStateException("The sentinels did not find " + replicas + " replicas and each other within 30s; "
				+ "sentinel log:\n" + this.sentinels.get(0).log());
	}

	private static void awaitLinkUp(RedisServer replica) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			if ("up".equals(replication(replica).getProperty("master_link_status"))) {
				return;
			}
			pause();
		}
		throw new IllegalStateException(replica + " did not connect to its master within 20s");
	}

	private static void pause() {
		try {
			Thread.sleep(100);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the Sentinel group", ex);
		}
	}

}

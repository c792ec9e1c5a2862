package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockConfigurationException;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A Redlock quorum is only as independent as its nodes: two entries that are one server (listed
 * under two addresses) or a master and its replica let one failure take out two votes. Both
 * fail the build, naming the two nodes, while independent servers build.
 */
@Timeout(60)
class RedlockNodeIndependenceIntegrationTests {

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@AfterEach
	void stop() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.servers.forEach(RedisServer::close);
	}

	@Test
	void oneServerListedUnderTwoAddressesFailsTheBuild() {
		RedisServer first = start();
		RedisServer second = start();
		LettuceConnectionFactory firstAgain = factory("localhost", first.port());
		List<LettuceConnectionFactory> nodes = List.of(factory(first.host(), first.port()), factory(second.host(), second.port()),
				firstAgain);
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> build(nodes))
			.withMessageContaining("'127.0.0.1:" + first.port() + "' and 'localhost:" + first.port() + "' are not independent")
			.withMessageContaining(replicationId(first));
	}

	@Test
	void aMasterAndItsReplicaFailTheBuild() {
		RedisServer master = start();
		RedisServer other = start();
		RedisServer replica = start("--replicaof", master.host(), Integer.toString(master.port()));
		await().atMost(Duration.ofSeconds(20)).until(() -> "up".equals(replication(replica).getProperty("master_link_status")));
		List<LettuceConnectionFactory> nodes = List.of(factory(master.host(), master.port()), factory(other.host(), other.port()),
				factory(replica.host(), replica.port()));
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> build(nodes))
			.withMessageContaining("'127.0.0.1:" + master.port() + "' and '127.0.0.1:" + replica.port() + "' are not independent")
			.withMessageContaining("a master and its replica");
	}

	@Test
	void independentServersBuild() {
		List<LettuceConnectionFactory> nodes = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RedisServer server = start();
			nodes.add(factory(server.host(), server.port()));
		}
		try (RedlockRegistry registry = build(nodes)) {
			registry.acquire("independent", Duration.ZERO).release();
		}
	}

	private RedlockRegistry build(List<LettuceConnectionFactory> nodes) {
		return RedlockRegistry.builder(nodes).perNodeTimeout(Duration.ofMillis(500)).build();
	}

	private RedisServer start(String... arguments) {
		RedisServer server = RedisServer.start(arguments);
		this.servers.add(server);
		return server;
	}

	private LettuceConnectionFactory factory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	private static String replicationId(RedisServer server) {
		return replication(server).getProperty("master_replid");
	}

	private static Properties replication(RedisServer server) {
		try (RedisConnection connection = server.connectionFactory().getConnection()) {
			return connection.serverCommands().info("replication");
		}
	}

}

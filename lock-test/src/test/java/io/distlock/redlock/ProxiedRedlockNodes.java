package io.distlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.test.network.FaultProxy;
import io.distlock.test.redis.LoopbackConnectionFactories;
import io.distlock.test.redis.RedisServer;

/**
 * The nodes of a Redlock, each reached through a {@link FaultProxy} of its own, so that a test
 * can delay, black-hole or cut one node's traffic: a JUnit extension that starts fresh servers
 * and proxies before each test and stops them after it (after the test's own
 * {@code @AfterEach}, which closes its registry first).
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * final ProxiedRedlockNodes nodes = new ProxiedRedlockNodes(3, Duration.ofSeconds(5));
 * </pre>
 */
public final class ProxiedRedlockNodes implements BeforeEachCallback, AfterEachCallback {

	private final int count;

	private final Duration commandTimeout;

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	/**
	 * Create the extension.
	 * @param count how many nodes
	 * @param commandTimeout the command timeout of each node's connection factory
	 */
	public ProxiedRedlockNodes(int count, Duration commandTimeout) {
		this.count = count;
		this.commandTimeout = commandTimeout;
	}

	/** The servers, in the order of {@link #connectionFactories()}. */
	public List<RedisServer> servers() {
		return this.servers;
	}

	/** The proxies, one in front of each server, in the same order. */
	public List<FaultProxy> proxies() {
		return this.proxies;
	}

	/** One connection factory per node, through its proxy. */
	public List<LettuceConnectionFactory> connectionFactories() {
		return this.connectionFactories;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		for (int i = 0; i < this.count; i++) {
			RedisServer server = RedisServer.start();
			FaultProxy proxy = FaultProxy.start(server.host(), server.port());
			this.servers.add(server);
			this.proxies.add(proxy);
			this.connectionFactories.add(LoopbackConnectionFactories.start(proxy.port(), this.commandTimeout));
		}
	}

	@Override
	public void afterEach(ExtensionContext context) {
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
		this.proxies.forEach(FaultProxy::close);
		this.servers.forEach(RedisServer::close);
		this.connectionFactories.clear();
		this.proxies.clear();
		this.servers.clear();
	}

}

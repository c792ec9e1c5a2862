package io.distlock.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A JUnit extension that runs several independent {@code redis-server} processes for a test
 * class, as the nodes of a Redlock, each with a connection factory of its own. Unlike
 * {@link RedisServerExtension} it leaves a node that a test paused or killed as it is.
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final RedisNodesExtension redlock = new RedisNodesExtension(3, Duration.ofSeconds(2));
 *
 * &#64;Test
 * void locks() {
 *     RedlockRegistry registry = RedlockRegistry.builder(redlock.connectionFactories()).build();
 *     redlock.node(0).kill();
 * }
 * </pre>
 */
public class RedisNodesExtension implements BeforeAllCallback, AfterAllCallback {

	private final int count;

	private final Duration commandTimeout;

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	/**
	 * Create an extension for the given number of nodes.
	 * @param count how many servers to run
	 * @param commandTimeout the command timeout of each node's connection factory
	 */
	public RedisNodesExtension(int count, Duration commandTimeout) {
		this.count = count;
		this.commandTimeout = commandTimeout;
	}

	/**
	 * Return the running servers, in the order of {@link #connectionFactories()}.
	 * @return the servers
	 */
	public List<RedisServer> servers() {
		return this.servers;
	}

	/**
	 * Return one of the servers.
	 * @param index the server's index, from 0
	 * @return the server
	 */
	public RedisServer node(int index) {
		return this.servers.get(index);
	}

	/**
	 * Return one connection factory per server.
	 * @return the connection factories
	 */
	public List<LettuceConnectionFactory> connectionFactories() {
		return this.connectionFactories;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		for (int i = 0; i < this.count; i++) {
			RedisServer server = RedisServer.start();
			this.servers.add(server);
			this.connectionFactories.add(server.newConnectionFactory(this.commandTimeout));
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
		this.servers.forEach(RedisServer::close);
		this.connectionFactories.clear();
		this.servers.clear();
	}

}

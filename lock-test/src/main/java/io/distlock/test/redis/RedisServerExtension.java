package io.distlock.test.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A JUnit 5 extension that runs one real {@code redis-server} for a test class, and brings it
 * back to life (resumed or restarted, empty) before each test if a test paused or killed it.
 * The connection factories a test asks for with {@link #newConnectionFactory(Duration)} are
 * destroyed after it (after the registries of a {@code LockRegistries} registered later).
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 *
 * &#64;Test
 * void locks() {
 *     RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory());
 * }
 * </pre>
 */
public class RedisServerExtension
		implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

	private final String[] arguments;

	private RedisServer server;

	private final List<LettuceConnectionFactory> connectionFactories = new CopyOnWriteArrayList<>();

	/**
	 * Create an extension whose server gets the given extra {@code redis-server} arguments.
	 * @param arguments extra arguments, such as {@code "--appendonly", "yes"}
	 */
	public RedisServerExtension(String... arguments) {
		this.arguments = arguments.clone();
	}

	/**
	 * Return the running server.
	 * @return the server
	 * @throws IllegalStateException outside a test class's lifecycle
	 */
	public RedisServer server() {
		if (this.server == null) {
			throw new IllegalStateException("The Redis server starts before the first test of the class");
		}
		return this.server;
	}

	/**
	 * Return a new connection factory of the server with the given command timeout, destroyed
	 * after the test.
	 * @param commandTimeout how long a command may take
	 * @return the started connection factory
	 */
	public LettuceConnectionFactory newConnectionFactory(Duration commandTimeout) {
		LettuceConnectionFactory connectionFactory = server().newConnectionFactory(commandTimeout);
		this.connectionFactories.add(connectionFactory);
		return connectionFactory;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.server = RedisServer.start(this.arguments);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.server.isPaused()) {
			this.server.resume();
		}
		if (!this.server.isRunning()) {
			this.server.restart();
		}
	}

	@Override
	public void afterEach(ExtensionContext context) {
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
		this.connectionFactories.clear();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.server != null) {
			this.server.close();
			this.server = null;
		}
	}

}

package io.distlock.test.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that runs one real {@code redis-server} for a test class, and brings it
 * back to life (resumed or restarted, empty) before each test if a test paused or killed it.
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
public class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

	private final String[] arguments;

	private RedisServer server;

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
	public void afterAll(ExtensionContext context) {
		if (this.server != null) {
			this.server.close();
			this.server = null;
		}
	}

}

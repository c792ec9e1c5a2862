package io.distlock.test.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

/**
 * A JUnit extension that makes the lock registries of a test, closes every one of them after
 * the test, and makes keys no other test uses; it also lends the test a pool for its other
 * threads, stopped after the test.
 * <p>
 * On a {@link RedisServerExtension}, {@link #redis()} builds a {@link RedisLockRegistry} on the
 * server; any other registry (Redlock, a cluster's, an in-memory one) is built by the test and
 * handed to {@link #add(AbstractLockRegistry)}:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 *
 * &#64;RegisterExtension
 * final LockRegistries registries = LockRegistries.on(redis);
 *
 * &#64;Test
 * void locks() {
 *     RedisLockRegistry registry = this.registries.redis((builder) -&gt; builder.leaseTime(Duration.ofSeconds(2)));
 *     String key = this.registries.randomKey();
 *     ...
 * }
 * </pre>
 *
 * After the test's {@code @AfterEach} methods, the pool is stopped first (its threads are
 * interrupted), then the registries are closed in the order they were made.
 */
public final class LockRegistries implements BeforeEachCallback, AfterEachCallback {

	private final Supplier<? extends RedisConnectionFactory> connectionFactory;

	private final List<AbstractLockRegistry> registries = new CopyOnWriteArrayList<>();

	private volatile String keyPrefix = "test";

	private ExecutorService executor;

	/**
	 * Create an extension for registries that the tests build themselves.
	 */
	public LockRegistries() {
		this(() -> {
			throw new IllegalStateException("No Redis connection factory: create LockRegistries.on(...) to use redis()");
		});
	}

	/**
	 * Create an extension whose {@link #redis()} registries use the given connection factory,
	 * asked for each time a registry is made.
	 * @param connectionFactory the Redis connection factory, such as a cluster's
	 */
	public LockRegistries(Supplier<? extends RedisConnectionFactory> connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Create an extension whose {@link #redis()} registries use the server of the given
	 * extension.
	 * @param redis the extension that runs the server
	 * @return the extension
	 */
	public static LockRegistries on(RedisServerExtension redis) {
		return new LockRegistries(() -> redis.server().connectionFactory());
	}

	/**
	 * Close the given registry after the test.
	 * @param <R> the registry's type
	 * @param registry a registry the test made
	 * @return the registry
	 */
	public <R extends AbstractLockRegistry> R add(R registry) {
		this.registries.add(registry);
		return registry;
	}

	/**
	 * Make a {@link RedisLockRegistry} with the builder's defaults, closed after the test.
	 * @return the registry
	 */
	public RedisLockRegistry redis() {
		return redis(UnaryOperator.identity());
	}

	/**
	 * Make a {@link RedisLockRegistry}, closed after the test.
	 * @param customizer sets what the test needs on the builder, such as
	 * {@code (builder) -> builder.leaseTime(Duration.ofSeconds(2))}
	 * @return the registry
	 */
	public RedisLockRegistry redis(UnaryOperator<RedisLockRegistry.Builder> customizer) {
		return add(customizer.apply(RedisLockRegistry.builder(this.connectionFactory.get())).build());
	}

	/**
	 * Return a key no other test uses: the test method's name and a random UUID, so that a key
	 * seen in the store tells which test made it.
	 * @return a random key
	 */
	public String randomKey() {
		return this.keyPrefix + ":" + UUID.randomUUID();
	}

	/**
	 * Return a pool for the test's other threads (a cached pool, made on first use), stopped
	 * after the test.
	 * @return the pool
	 */
	public synchronized ExecutorService executor() {
		if (this.executor == null) {
			this.executor = Executors.newCachedThreadPool();
		}
		return this.executor;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.keyPrefix = context.getTestMethod().map((method) -> method.getName()).orElse("test");
	}

	@Override
	public void afterEach(ExtensionContext context) {
		synchronized (this) {
			if (this.executor != null) {
				this.executor.shutdownNow();
				this.executor = null;
			}
		}
		List<AbstractLockRegistry> closing = new ArrayList<>(this.registries);
		this.registries.clear();
		RuntimeException failure = null;
		for (AbstractLockRegistry registry : closing) {
			// Close every registry even when one fails, so that no renewal outlives the test.
			try {
				registry.close();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}

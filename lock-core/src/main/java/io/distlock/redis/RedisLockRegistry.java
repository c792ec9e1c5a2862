package io.distlock.redis;

import java.time.Duration;
import java.util.Objects;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.RegistrySettings;

/**
 * A {@link io.distlock.core.LockRegistry} on one Redis deployment, reusing the application's
 * {@link RedisConnectionFactory}.
 * <p>
 * A grant is {@code SET <prefix>{key} <owner> NX PX <lease>} plus a fencing token minted in the
 * same script; a release deletes the key only if it still holds this grant's owner; the watchdog
 * extends held keys in batches every renewal interval. Exclusion holds while the lease is valid
 * and the Redis node keeps its data: an asynchronous replica promoted after a failover, or a
 * wall-clock step on the Redis host, can let a second holder in, which the fencing token lets a
 * resource detect.
 *
 * <pre class="code">
 * RedisLockRegistry registry = new RedisLockRegistry(connectionFactory);
 * DistLock lock = registry.obtain("stock:42");
 * if (lock.tryLock(Duration.ofSeconds(2))) {
 *     try {
 *         reserve(42, lock.lease().fencingToken());
 *     }
 *     finally {
 *         lock.unlock();
 *     }
 * }
 * </pre>
 */
public class RedisLockRegistry extends AbstractLockRegistry {

	/** The default prefix of every Redis key the registry writes. */
	public static final String DEFAULT_KEY_PREFIX = "distlock:";

	/** The default time the last fencing token of a key is kept after its grant. */
	public static final Duration DEFAULT_FENCE_RETENTION_TIME = Duration.ofMinutes(10);

	private final String keyPrefix;

	private final KeyspaceLossEvents lossEvents;

	/**
	 * Create a registry with the default options: key prefix {@value #DEFAULT_KEY_PREFIX}, a
	 * 30 s lease renewed every 10 s while held, and pub/sub waiting.
	 * @param connectionFactory the factory of connections to Redis
	 */
	public RedisLockRegistry(RedisConnectionFactory connectionFactory) {
		this(builder(connectionFactory));
	}

	private RedisLockRegistry(Builder builder) {
		// The settings are checked before the store is created, so that an invalid option leaves
		// nothing behind.
		this(builder, builder.settings(), new RedisLockKeys(builder.keyPrefix()));
	}

	private RedisLockRegistry(Builder builder, RegistrySettings settings, RedisLockKeys keys) {
		super(new RedisLockStore(builder.connectionFactory, keys, builder.fenceRetentionTime(), builder.replicas,
				builder.replicaTimeout, builder.publishesReleases()), settings);
		this.keyPrefix = keys.prefix();
		this.lossEvents = builder.keyspaceEvents ? new KeyspaceLossEvents(builder.connectionFactory, keys) : null;
		if (this.lossEvents != null) {
			try {
				this.lossEvents.start(this::suspectLoss);
			}
			catch (RuntimeException ex) {
				super.close();
				throw ex;
			}
		}
	}

	/**
	 * Stop listening for keyspace events, then close the registry.
	 */
	@Override
	public void close() {
		if (this.lossEvents != null) {
			this.lossEvents.stop();
		}
		super.close();
	}

	/**
	 * Start building a registry with options.
	 * @param connectionFactory the factory of connections to Redis
	 * @return a builder with the default options
	 */
	public static Builder builder(RedisConnectionFactory connectionFactory) {
		return new Builder(connectionFactory);
	}

	/**
	 * Return the prefix of every Redis key this registry writes.
	 * @return the key prefix
	 */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Builds a {@link RedisLockRegistry}. Every option has a safe default.
	 */
	public static final class Builder extends AbstractRedisRegistryBuilder<Builder> {

		private final RedisConnectionFactory connectionFactory;

		private int replicas;

		private Duration replicaTimeout = Duration.ofMillis(100);

		private boolean keyspaceEvents;

		private Builder(RedisConnectionFactory connectionFactory) {
			this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		}

		/**
		 * Require every grant to be acknowledged by replicas before it counts ({@code WAIT}); a
		 * grant they do not acknowledge in time is given back and the acquisition fails with a
		 * {@link io.distlock.core.LockReplicationException} as cause. Narrows, but does not
		 * close, the failover hole: {@code WAIT} does not make Redis strongly consistent.
		 * @param replicas how many replicas must acknowledge, zero to not wait (the default)
		 * @param timeout how long to wait for them
		 * @return this builder
		 */
		public Builder replicaAcknowledgement(int replicas, Duration timeout) {
			if (replicas < 0) {
				throw new InvalidRegistryOptionException("replicas", replicas,
						"replicas must not be negative but was '" + replicas + "'");
			}
			if (timeout == null || timeout.isNegative() || timeout.isZero()) {
				throw new InvalidRegistryOptionException("replicaTimeout", timeout,
						"replica timeout must be positive but was '" + timeout + "'");
			}
			this.replicas = replicas;
			this.replicaTimeout = timeout;
			return this;
		}

		/**
		 * Learn of a lost lock the moment Redis deletes, expires or evicts its key, from keyspace
		 * notifications, instead of at the next renewal: a holder is told within milliseconds
		 * of an administrator's {@code DEL}. Needs the server's {@code notify-keyspace-events}
		 * to include {@code Egxe} (checked at build; the build fails if it does not, and warns if
		 * {@code CONFIG} is refused). Exclusive and write locks; not on Redis Cluster.
		 * @param keyspaceEvents whether to listen (default {@code false})
		 * @return this builder
		 */
		public Builder keyspaceEvents(boolean keyspaceEvents) {
			this.keyspaceEvents = keyspaceEvents;
			return this;
		}

		/**
		 * Build the registry.
		 * @return the registry
		 * @throws LockConfigurationException naming the option that is invalid
		 */
		public RedisLockRegistry build() {
			return new RedisLockRegistry(this);
		}

		private RegistrySettings settings() {
			return settings(RegistrySettings.DEFAULT_DRIFT_FACTOR, Duration.ZERO);
		}

	}

}

package io.distlock.redis;

import java.time.Duration;
import java.util.Objects;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockListener;
import io.distlock.core.WaitStrategy;
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

	/**
	 * Create a registry with the default options: key prefix {@value #DEFAULT_KEY_PREFIX}, a
	 * 30 s lease renewed every 10 s while held, and pub/sub waiting.
	 * @param connectionFactory the factory of connections to Redis
	 */
	public RedisLockRegistry(RedisConnectionFactory connectionFactory) {
		this(builder(connectionFactory));
	}

	private RedisLockRegistry(Builder builder) {
		this(builder, new RedisLockKeys(builder.keyPrefix));
	}

	private RedisLockRegistry(Builder builder, RedisLockKeys keys) {
		super(new RedisLockStore(builder.connectionFactory, keys, builder.fenceRetentionTime, builder.replicas,
				builder.replicaTimeout), builder.settings());
		this.keyPrefix = keys.prefix();
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
	public static final class Builder {

		private final RedisConnectionFactory connectionFactory;

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private Duration leaseTime = RegistrySettings.DEFAULT_LEASE_TIME;

		private Duration renewalInterval;

		private WaitStrategy waitStrategy = WaitStrategy.PUB_SUB;

		private Duration retryInterval;

		private Duration fenceRetentionTime = DEFAULT_FENCE_RETENTION_TIME;

		private LockListener listener = LockListener.NONE;

		private String instanceId;

		private int replicas;

		private Duration replicaTimeout = Duration.ofMillis(100);

		private Builder(RedisConnectionFactory connectionFactory) {
			this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		}

		/**
		 * Set the prefix of every Redis key; it must not contain '{' or '}'.
		 * @param keyPrefix the prefix, default {@value RedisLockRegistry#DEFAULT_KEY_PREFIX}
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
			return this;
		}

		/**
		 * Set the lease of a grant without a fixed lease time; the watchdog renews it while it
		 * is held, so it matters only when the holder dies or is cut off.
		 * @param leaseTime the lease, default 30 s
		 * @return this builder
		 */
		public Builder leaseTime(Duration leaseTime) {
			this.leaseTime = leaseTime;
			return this;
		}

		/**
		 * Set how often the watchdog renews a held grant; at most half the lease.
		 * @param renewalInterval the interval, default a third of the lease
		 * @return this builder
		 */
		public Builder renewalInterval(Duration renewalInterval) {
			this.renewalInterval = renewalInterval;
			return this;
		}

		/**
		 * Set how a waiter learns that a lock was released.
		 * @param waitStrategy the strategy, default {@link WaitStrategy#PUB_SUB}
		 * @return this builder
		 */
		public Builder waitStrategy(WaitStrategy waitStrategy) {
			this.waitStrategy = waitStrategy;
			return this;
		}

		/**
		 * Set the longest pause between two attempts of a waiter (jittered between half and all
		 * of it, and never longer than the holder's remaining lease).
		 * @param retryInterval the interval, default 1 s with pub/sub and 100 ms when polling
		 * @return this builder
		 */
		public Builder retryInterval(Duration retryInterval) {
			this.retryInterval = retryInterval;
			return this;
		}

		/**
		 * Set how long the last fencing token of a key is kept after a grant. Tokens grow even
		 * after it is gone (they follow the Redis server clock); keeping it covers a backward
		 * step of that clock shorter than the retention.
		 * @param fenceRetentionTime the retention, default 10 minutes
		 * @return this builder
		 */
		public Builder fenceRetentionTime(Duration fenceRetentionTime) {
			this.fenceRetentionTime = fenceRetentionTime;
			return this;
		}

		/**
		 * Set the listener told about every grant (metrics, events).
		 * @param listener the listener, default none
		 * @return this builder
		 */
		public Builder listener(LockListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/**
		 * Set the id that starts every owner value this registry writes, to tell in Redis which
		 * instance holds a lock.
		 * @param instanceId the id, default the process id and a random part
		 * @return this builder
		 */
		public Builder instanceId(String instanceId) {
			this.instanceId = instanceId;
			return this;
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
				throw new LockConfigurationException("replicas must not be negative but was '" + replicas + "'");
			}
			if (timeout == null || timeout.isNegative() || timeout.isZero()) {
				throw new LockConfigurationException("replica timeout must be positive but was '" + timeout + "'");
			}
			this.replicas = replicas;
			this.replicaTimeout = timeout;
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
			if (this.fenceRetentionTime == null || this.fenceRetentionTime.isNegative()
					|| this.fenceRetentionTime.isZero()) {
				throw new LockConfigurationException(
						"fenceRetentionTime must be positive but was '" + this.fenceRetentionTime + "'");
			}
			if (this.leaseTime == null || this.leaseTime.isNegative() || this.leaseTime.isZero()) {
				throw new LockConfigurationException("leaseTime must be positive but was '" + this.leaseTime + "'");
			}
			Duration renewal = (this.renewalInterval != null) ? this.renewalInterval
					: RegistrySettings.defaultRenewalInterval(this.leaseTime);
			Duration retry = (this.retryInterval != null) ? this.retryInterval
					: RegistrySettings.defaultRetryInterval(this.waitStrategy);
			String id = (this.instanceId != null) ? this.instanceId : RegistrySettings.newInstanceId();
			return new RegistrySettings(this.leaseTime, renewal, this.waitStrategy, retry, this.listener, id);
		}

	}

}

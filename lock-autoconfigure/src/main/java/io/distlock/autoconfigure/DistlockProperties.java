package io.distlock.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

import io.distlock.core.WaitStrategy;
import io.distlock.engine.RegistrySettings;

/**
 * Configuration properties for distributed locks ({@code distlock.*}). Unknown properties under
 * {@code distlock} are rejected, and invalid combinations fail at startup naming the property.
 */
@ConfigurationProperties(prefix = "distlock", ignoreUnknownFields = false)
public class DistlockProperties implements InitializingBean {

	/** The default order of the lock advice: just before Spring's transaction advice. */
	public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

	/**
	 * Whether to enable distributed locking.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key the locks write. Must not contain '{' or '}'.
	 */
	private String keyPrefix = "distlock:";

	/**
	 * How long an annotated method waits for its lock when the annotation sets no waitTime.
	 */
	private Duration waitTime = Duration.ofSeconds(5);

	/**
	 * Lease of a lock without a fixed lease time. The watchdog renews it while the lock is held,
	 * so it matters only when the holder dies or is cut off from Redis.
	 */
	private Duration leaseTime = RegistrySettings.DEFAULT_LEASE_TIME;

	/**
	 * How often the watchdog renews a held lock, at most half the lease time. Defaults to a
	 * third of the lease time.
	 */
	private Duration renewalInterval;

	/**
	 * How a waiter learns that a lock was released.
	 */
	private WaitStrategy waitStrategy = WaitStrategy.PUB_SUB;

	/**
	 * Longest pause between two attempts of a waiter, jittered and never longer than the
	 * holder's remaining lease. Defaults to 1s with pub-sub and 100ms when polling.
	 */
	private Duration retryInterval;

	/**
	 * How long the last fencing token of a key is kept after a grant.
	 */
	private Duration fenceRetentionTime = Duration.ofMinutes(10);

	/**
	 * Order of the lock advice. Must be lower than the transaction advice's order, so that a
	 * lock is taken before a transaction begins and released after it ends.
	 */
	private int aspectOrder = DEFAULT_ASPECT_ORDER;

	private final Metrics metrics = new Metrics();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getRenewalInterval() {
		return this.renewalInterval;
	}

	public void setRenewalInterval(Duration renewalInterval) {
		this.renewalInterval = renewalInterval;
	}

	public WaitStrategy getWaitStrategy() {
		return this.waitStrategy;
	}

	public void setWaitStrategy(WaitStrategy waitStrategy) {
		this.waitStrategy = waitStrategy;
	}

	public Duration getRetryInterval() {
		return this.retryInterval;
	}

	public void setRetryInterval(Duration retryInterval) {
		this.retryInterval = retryInterval;
	}

	public Duration getFenceRetentionTime() {
		return this.fenceRetentionTime;
	}

	public void setFenceRetentionTime(Duration fenceRetentionTime) {
		this.fenceRetentionTime = fenceRetentionTime;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	/**
	 * Return the renewal interval in force: the configured one, or a third of the lease time.
	 * @return the renewal interval
	 */
	public Duration effectiveRenewalInterval() {
		return (this.renewalInterval != null) ? this.renewalInterval
				: RegistrySettings.defaultRenewalInterval(this.leaseTime);
	}

	@Override
	public void afterPropertiesSet() {
		if (this.keyPrefix == null || this.keyPrefix.isEmpty()) {
			throw new InvalidLockPropertyException("distlock.key-prefix", this.keyPrefix, "must not be empty");
		}
		if (this.keyPrefix.indexOf('{') >= 0 || this.keyPrefix.indexOf('}') >= 0) {
			throw new InvalidLockPropertyException("distlock.key-prefix", this.keyPrefix,
					"must not contain '{' or '}': they delimit the Redis hash tag");
		}
		requireNotNegative("distlock.wait-time", this.waitTime);
		requirePositive("distlock.lease-time", this.leaseTime);
		requirePositive("distlock.fence-retention-time", this.fenceRetentionTime);
		if (this.renewalInterval != null) {
			requirePositive("distlock.renewal-interval", this.renewalInterval);
			if (this.renewalInterval.compareTo(RegistrySettings.MIN_RENEWAL_INTERVAL) < 0) {
				throw new InvalidLockPropertyException("distlock.renewal-interval", this.renewalInterval,
						"must be at least " + RegistrySettings.MIN_RENEWAL_INTERVAL.toMillis() + "ms");
			}
			if (this.renewalInterval.multipliedBy(2).compareTo(this.leaseTime) > 0) {
				throw new InvalidLockPropertyException("distlock.renewal-interval", this.renewalInterval,
						"must be at most half of distlock.lease-time '" + this.leaseTime
								+ "', so that one failed renewal can be retried before the lease expires");
			}
		}
		if (this.retryInterval != null) {
			requirePositive("distlock.retry-interval", this.retryInterval);
		}
		if (this.waitStrategy == null) {
			throw new InvalidLockPropertyException("distlock.wait-strategy", null, "must be set");
		}
	}

	private static void requirePositive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidLockPropertyException(property, value, "must be positive");
		}
	}

	private static void requireNotNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidLockPropertyException(property, value, "must not be negative");
		}
	}

	/**
	 * Metrics properties ({@code distlock.metrics.*}).
	 */
	public static class Metrics {

		/**
		 * Whether to record distlock.* meters when Micrometer is present.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}

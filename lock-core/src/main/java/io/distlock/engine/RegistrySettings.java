package io.distlock.engine;

import java.time.Duration;
import java.util.Objects;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockListener;
import io.distlock.core.WaitStrategy;

/**
 * The validated options every registry shares.
 *
 * @param leaseTime the lease of a grant renewed by the watchdog
 * @param renewalInterval how often the watchdog renews a held grant
 * @param waitStrategy how waiters learn that a lock was released
 * @param retryInterval the longest pause between two attempts of a waiter
 * @param listener the listener told about every grant
 * @param instanceId the id that prefixes every owner this registry writes
 */
public record RegistrySettings(Duration leaseTime, Duration renewalInterval, WaitStrategy waitStrategy,
		Duration retryInterval, LockListener listener, String instanceId) {

	/** The default lease of a watchdog-renewed grant. */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	/** The default retry interval when waiting through pub/sub notifications. */
	public static final Duration DEFAULT_PUB_SUB_RETRY_INTERVAL = Duration.ofSeconds(1);

	/** The default retry interval when polling. */
	public static final Duration DEFAULT_POLLING_RETRY_INTERVAL = Duration.ofMillis(100);

	/** The shortest renewal interval the watchdog accepts. */
	public static final Duration MIN_RENEWAL_INTERVAL = Duration.ofMillis(10);

	/**
	 * Validate the settings.
	 * @throws LockConfigurationException naming the option that is wrong
	 */
	public RegistrySettings {
		Objects.requireNonNull(waitStrategy, "waitStrategy must not be null");
		Objects.requireNonNull(listener, "listener must not be null");
		Objects.requireNonNull(instanceId, "instanceId must not be null");
		requirePositive("leaseTime", leaseTime);
		requirePositive("renewalInterval", renewalInterval);
		requirePositive("retryInterval", retryInterval);
		if (renewalInterval.compareTo(MIN_RENEWAL_INTERVAL) < 0) {
			throw new LockConfigurationException("renewalInterval must be at least " + MIN_RENEWAL_INTERVAL.toMillis()
					+ "ms but was '" + renewalInterval + "'");
		}
		if (renewalInterval.multipliedBy(2).compareTo(leaseTime) > 0) {
			throw new LockConfigurationException("renewalInterval '" + renewalInterval
					+ "' must be at most half of leaseTime '" + leaseTime
					+ "' so that one failed renewal can be retried before the lease expires");
		}
		if (instanceId.isBlank()) {
			throw new LockConfigurationException("instanceId must not be blank");
		}
	}

	/**
	 * Return the default renewal interval for a lease: a third of it.
	 * @param leaseTime the lease
	 * @return the renewal interval
	 */
	public static Duration defaultRenewalInterval(Duration leaseTime) {
		return leaseTime.dividedBy(3);
	}

	/**
	 * Return the default retry interval of a wait strategy.
	 * @param waitStrategy the wait strategy
	 * @return the retry interval
	 */
	public static Duration defaultRetryInterval(WaitStrategy waitStrategy) {
		return (waitStrategy == WaitStrategy.POLLING) ? DEFAULT_POLLING_RETRY_INTERVAL : DEFAULT_PUB_SUB_RETRY_INTERVAL;
	}

	/**
	 * Return a new instance id: the process id and a random part, unique per registry.
	 * @return the instance id
	 */
	public static String newInstanceId() {
		String random = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 16);
		return ProcessHandle.current().pid() + "-" + random;
	}

	/**
	 * Return the margin by which a lease's local validity is shortened for clock drift between
	 * this process and the store: 1% of the lease plus 2 ms, as Redlock prescribes.
	 * @param leaseTime the lease
	 * @return the drift margin
	 */
	public static Duration driftMargin(Duration leaseTime) {
		return leaseTime.dividedBy(100).plusMillis(2);
	}

	private static void requirePositive(String name, Duration value) {
		if (value == null || value.isZero() || value.isNegative()) {
			throw new LockConfigurationException(name + " must be positive but was '" + value + "'");
		}
	}

}

package io.distlock.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;

/**
 * The options every registry shares. The rules that relate options to each other (the renewal
 * interval against its floor and the lease, the drift factor, the local handoff limits) are
 * checked once, by the builder that sets them; these settings check what every registry relies
 * on whoever creates them.
 *
 * @param leaseTime the lease of a grant renewed by the watchdog
 * @param renewalInterval how often the watchdog renews a held grant
 * @param waitStrategy how waiters learn that a lock was released
 * @param retryInterval the longest pause between two attempts of a waiter
 * @param listener the listener told about every grant
 * @param instanceId the id that prefixes every owner this registry writes
 * @param driftFactor the share of a lease kept back for clock drift between this process and the
 * store (Redlock's drift factor), in (0, 0.1]
 * @param minValidity the shortest validity a fresh grant may have; a grant whose reply came so
 * late that less is left is given back and retried
 * @param maxLocalHandoffs how many times in a row a contended exclusive lock may pass between
 * threads of this process without a store round trip before it is released in the store; 0
 * turns local handoff off
 * @param maxLocalHandoffTime how long after the store granted it a lock may still be handed to
 * another thread of this process
 * @param maxLeaseTime the longest lease, extension or hold-at-least this registry grants: a holder
 * that dies keeps the lock that long
 * @param keyLimit how long a key may be, and what becomes of a longer one
 */
public record RegistrySettings(Duration leaseTime, Duration renewalInterval, WaitStrategy waitStrategy,
		Duration retryInterval, LockListener listener, String instanceId, double driftFactor, Duration minValidity,
		int maxLocalHandoffs, Duration maxLocalHandoffTime, Duration maxLeaseTime, KeyLimit keyLimit) {

	/** The default drift factor: 1% of the lease, as Redlock prescribes. */
	public static final double DEFAULT_DRIFT_FACTOR = 0.01;

	/** The default lease of a watchdog-renewed grant. */
	public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	/** The default retry interval when waiting through pub/sub notifications. */
	public static final Duration DEFAULT_PUB_SUB_RETRY_INTERVAL = Duration.ofSeconds(1);

	/** The default retry interval when polling. */
	public static final Duration DEFAULT_POLLING_RETRY_INTERVAL = Duration.ofMillis(100);

	/** The default number of local handoffs in a row before a store release. */
	public static final int DEFAULT_MAX_LOCAL_HANDOFFS = 64;

	/**
	 * The most local handoffs in a row. Handed-over tokens count up by one from the store's
	 * token, which follows the server clock in microseconds; keeping them fewer than the
	 * microseconds of the shortest lease (20 ms) means a grant the store mints after the key
	 * expired is larger than all of them, even if the release that records them never arrives.
	 */
	public static final int MAX_LOCAL_HANDOFFS = 1000;

	/** The default time a lock may be handed around locally after the store granted it. */
	public static final Duration DEFAULT_MAX_LOCAL_HANDOFF_TIME = Duration.ofMillis(50);

	/** The default longest lease: a day (reliability catalogue B13). */
	public static final Duration DEFAULT_MAX_LEASE_TIME = Duration.ofHours(24);

	/**
	 * The largest longest lease a registry may be given: a year, so that every deadline a lease
	 * sets is far from overflowing a count of nanoseconds.
	 */
	public static final Duration LIMIT_MAX_LEASE_TIME = Duration.ofDays(365);

	/** The shortest renewal interval the watchdog accepts. */
	public static final Duration MIN_RENEWAL_INTERVAL = Duration.ofMillis(10);

	/**
	 * Validate what the settings rely on.
	 * @throws LockConfigurationException naming the option that is wrong
	 */
	public RegistrySettings {
		Objects.requireNonNull(waitStrategy, "waitStrategy must not be null");
		Objects.requireNonNull(listener, "listener must not be null");
		Objects.requireNonNull(instanceId, "instanceId must not be null");
		requirePositive("leaseTime", leaseTime);
		try {
			LockRequest.requireMinLease(leaseTime, "leaseTime");
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRegistryOptionException("leaseTime", leaseTime, ex.getMessage());
		}
		Objects.requireNonNull(renewalInterval, "renewalInterval must not be null");
		requirePositive("retryInterval", retryInterval);
		if (instanceId.isBlank()) {
			throw new LockConfigurationException("instanceId must not be blank");
		}
		Objects.requireNonNull(minValidity, "minValidity must not be null");
		if (minValidity.isNegative() || minValidity.compareTo(leaseTime) >= 0) {
			throw new InvalidRegistryOptionException("minValidity", minValidity, "minValidity '" + minValidity
					+ "' must be at least zero and shorter than leaseTime '" + leaseTime + "'");
		}
		Objects.requireNonNull(maxLocalHandoffTime, "maxLocalHandoffTime must not be null");
		Objects.requireNonNull(keyLimit, "keyLimit must not be null");
		Objects.requireNonNull(maxLeaseTime, "maxLeaseTime must not be null");
		if (maxLeaseTime.compareTo(leaseTime) < 0 || maxLeaseTime.compareTo(LIMIT_MAX_LEASE_TIME) > 0) {
			throw new InvalidRegistryOptionException("maxLeaseTime", maxLeaseTime, "maxLeaseTime '" + maxLeaseTime
					+ "' must be at least leaseTime '" + leaseTime + "' and at most " + LIMIT_MAX_LEASE_TIME.toDays()
					+ " days");
		}
	}

	/**
	 * Create settings with the default drift factor, no minimum validity, the default local
	 * handoff limits, the default longest lease (or the lease time, if it is longer) and the
	 * default key limit.
	 * @param leaseTime the lease of a grant renewed by the watchdog
	 * @param renewalInterval how often the watchdog renews a held grant
	 * @param waitStrategy how waiters learn that a lock was released
	 * @param retryInterval the longest pause between two attempts of a waiter
	 * @param listener the listener told about every grant
	 * @param instanceId the id that prefixes every owner this registry writes
	 */
	public RegistrySettings(Duration leaseTime, Duration renewalInterval, WaitStrategy waitStrategy,
			Duration retryInterval, LockListener listener, String instanceId) {
		this(leaseTime, renewalInterval, waitStrategy, retryInterval, listener, instanceId, DEFAULT_DRIFT_FACTOR,
				Duration.ZERO, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HANDOFF_TIME,
				(leaseTime != null && leaseTime.compareTo(DEFAULT_MAX_LEASE_TIME) > 0) ? leaseTime
						: DEFAULT_MAX_LEASE_TIME,
				KeyLimit.DEFAULT);
	}

	/**
	 * Return these settings with other local handoff limits.
	 * @param maxHandoffs how many local handoffs in a row; 0 turns local handoff off
	 * @param maxTime how long after the store's grant a lock may still be handed over locally
	 * @return the new settings
	 */
	public RegistrySettings withLocalHandoff(int maxHandoffs, Duration maxTime) {
		return new RegistrySettings(this.leaseTime, this.renewalInterval, this.waitStrategy, this.retryInterval,
				this.listener, this.instanceId, this.driftFactor, this.minValidity, maxHandoffs, maxTime,
				this.maxLeaseTime, this.keyLimit);
	}

	/**
	 * Return these settings with another longest lease.
	 * @param maxLeaseTime the longest lease, extension or hold-at-least
	 * @return the new settings
	 */
	public RegistrySettings withMaxLeaseTime(Duration maxLeaseTime) {
		return new RegistrySettings(this.leaseTime, this.renewalInterval, this.waitStrategy, this.retryInterval,
				this.listener, this.instanceId, this.driftFactor, this.minValidity, this.maxLocalHandoffs,
				this.maxLocalHandoffTime, maxLeaseTime, this.keyLimit);
	}

	/**
	 * Return these settings with another key limit.
	 * @param keyLimit how long a key may be, and what becomes of a longer one
	 * @return the new settings
	 */
	public RegistrySettings withKeyLimit(KeyLimit keyLimit) {
		return new RegistrySettings(this.leaseTime, this.renewalInterval, this.waitStrategy, this.retryInterval,
				this.listener, this.instanceId, this.driftFactor, this.minValidity, this.maxLocalHandoffs,
				this.maxLocalHandoffTime, this.maxLeaseTime, keyLimit);
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
		return driftMargin(leaseTime, DEFAULT_DRIFT_FACTOR);
	}

	/**
	 * Return the drift margin of a lease with a drift factor: {@code lease * factor + 2 ms}.
	 * @param leaseTime the lease
	 * @param driftFactor the drift factor
	 * @return the drift margin
	 */
	public static Duration driftMargin(Duration leaseTime, double driftFactor) {
		return Duration.ofNanos((long) (leaseTime.toNanos() * driftFactor)).plusMillis(2);
	}

	/**
	 * Refuse a fixed lease this registry could never grant: shorter than
	 * {@link LockRequest#MIN_LEASE_TIME}, or leaving no more than {@code minValidity} once the
	 * drift margin is kept back.
	 * @param leaseTime the lease
	 * @param what what the lease is called where it was given, for the message
	 * @throws IllegalArgumentException if the lease is too short, or longer than
	 * {@link #maxLeaseTime()}
	 */
	public void requireGrantable(Duration leaseTime, String what) {
		LockRequest.requireMinLease(leaseTime, what);
		requireAtMostMaxLease(leaseTime, what);
		Duration validity = leaseTime.minus(driftMarginOf(leaseTime));
		if (validity.compareTo(this.minValidity) <= 0) {
			throw new IllegalArgumentException(what + " '" + leaseTime + "' leaves " + validity.toMillis()
					+ "ms of validity after the drift margin, not more than this registry's minValidity '"
					+ this.minValidity + "': no grant could be relied on");
		}
	}

	/**
	 * Refuse a time a grant would be kept in the store that is longer than
	 * {@link #maxLeaseTime()}.
	 * @param time the lease, extension or hold-at-least
	 * @param what what it is called where it was given, for the message
	 * @throws IllegalArgumentException if it is longer
	 */
	public void requireAtMostMaxLease(Duration time, String what) {
		if (time.compareTo(this.maxLeaseTime) > 0) {
			throw new IllegalArgumentException(what + " '" + time + "' is longer than this registry's maxLeaseTime '"
					+ this.maxLeaseTime + "': a holder that dies would keep the lock that long");
		}
	}

	/**
	 * Return this registry's drift margin for a lease.
	 * @param leaseTime the lease
	 * @return the drift margin
	 */
	public Duration driftMarginOf(Duration leaseTime) {
		return driftMargin(leaseTime, this.driftFactor);
	}

	/** Return until when a grant sent at {@code sentNanos} is valid: its lease less the drift margin. */
	long validUntilNanos(long sentNanos, Duration leaseTime) {
		return sentNanos + leaseTime.toNanos() - driftMarginOf(leaseTime).toNanos();
	}

	/**
	 * Return how long a waiter pauses before its next attempt: a jittered half to whole retry
	 * interval, no longer than the holder's remaining lease ({@code holderTtlMillis}, negative if
	 * the store did not say) or the waiter's remaining wait.
	 */
	long retryPauseNanos(long holderTtlMillis, long remainingNanos) {
		long retryNanos = this.retryInterval.toNanos();
		long pause = retryNanos / 2 + ThreadLocalRandom.current().nextLong(retryNanos / 2 + 1);
		if (holderTtlMillis >= 0) {
			pause = Math.min(pause, TimeUnit.MILLISECONDS.toNanos(holderTtlMillis + 1));
		}
		return Math.min(pause, remainingNanos);
	}

	/**
	 * Return how long the store should keep a waiter's place (its fair queue place, a waiting
	 * writer's mark, the "someone waits" flag that makes a release publish or a checkpoint hand
	 * over), polling or not; every attempt, one retry interval apart at most, refreshes it.
	 */
	Duration waitHint(long remainingNanos) {
		if (remainingNanos <= 0) {
			return Duration.ZERO;
		}
		long hint = Math.min(remainingNanos, this.retryInterval.toNanos() * 2);
		return Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(hint)));
	}

	private static void requirePositive(String name, Duration value) {
		if (value == null || value.isZero() || value.isNegative()) {
			throw new InvalidRegistryOptionException(name, value, name + " must be positive but was '" + value + "'");
		}
	}

}

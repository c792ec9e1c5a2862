package io.distlock.redis;

import java.time.Duration;
import java.util.Objects;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockListener;
import io.distlock.core.WaitStrategy;
import io.distlock.engine.KeyLimit;
import io.distlock.engine.LocalHandoffLimits;
import io.distlock.engine.RegistrySettings;
import io.distlock.engine.WatchdogTiming;

/**
 * The options every registry on Redis shares, for {@link RedisLockRegistry.Builder} and
 * {@code RedlockRegistry.Builder}. Every option has a safe default.
 *
 * @param <B> the concrete builder
 */
public abstract class AbstractRedisRegistryBuilder<B extends AbstractRedisRegistryBuilder<B>> {

	/** The default lease of a lock renewed by the watchdog. */
	public static final Duration DEFAULT_LEASE_TIME = RegistrySettings.DEFAULT_LEASE_TIME;

	/** The shortest renewal interval the watchdog accepts. */
	public static final Duration MIN_RENEWAL_INTERVAL = RegistrySettings.MIN_RENEWAL_INTERVAL;

	/** The default number of local handoffs in a row before a release in Redis. */
	public static final int DEFAULT_MAX_LOCAL_HANDOFFS = RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFFS;

	/** The most local handoffs in a row. */
	public static final int MAX_LOCAL_HANDOFFS = RegistrySettings.MAX_LOCAL_HANDOFFS;

	/** The default time a lock may be handed around locally after Redis granted it. */
	public static final Duration DEFAULT_MAX_LOCAL_HANDOFF_TIME = RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFF_TIME;

	/** The default longest lease, extension or hold-at-least: a day. */
	public static final Duration DEFAULT_MAX_LEASE_TIME = RegistrySettings.DEFAULT_MAX_LEASE_TIME;

	/** The largest longest lease a registry may be given: 365 days. */
	public static final Duration LIMIT_MAX_LEASE_TIME = RegistrySettings.LIMIT_MAX_LEASE_TIME;

	/** The default longest key: 512 UTF-8 bytes. */
	public static final int DEFAULT_MAX_KEY_BYTES = KeyLimit.DEFAULT_MAX_BYTES;

	/** The shortest longest key a registry may be given. */
	public static final int MIN_MAX_KEY_BYTES = KeyLimit.MIN_MAX_BYTES;

	/** The largest longest key a registry may be given: 1 MiB. */
	public static final int LIMIT_MAX_KEY_BYTES = KeyLimit.LIMIT_MAX_BYTES;

	private String keyPrefix = RedisLockRegistry.DEFAULT_KEY_PREFIX;

	private Duration leaseTime = DEFAULT_LEASE_TIME;

	private Duration renewalInterval;

	private WaitStrategy waitStrategy = WaitStrategy.PUB_SUB;

	private Duration retryInterval;

	private Duration fenceRetentionTime = RedisLockRegistry.DEFAULT_FENCE_RETENTION_TIME;

	private LockListener listener = LockListener.NONE;

	private String instanceId;

	private LocalHandoffLimits localHandoff = LocalHandoffLimits.DEFAULT;

	private Duration maxLeaseTime = DEFAULT_MAX_LEASE_TIME;

	private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;

	private KeyLimit.Overflow longKeys = KeyLimit.Overflow.REFUSE;

	/** Create a builder with the default options. */
	protected AbstractRedisRegistryBuilder() {
	}

	/**
	 * Set the prefix of every Redis key; it must not contain '{' or '}'.
	 * @param keyPrefix the prefix, default {@value RedisLockRegistry#DEFAULT_KEY_PREFIX}
	 * @return this builder
	 */
	public B keyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
		return self();
	}

	/**
	 * Set the lease of a grant without a fixed lease time; the watchdog renews it while it is
	 * held, so it matters only when the holder dies or is cut off.
	 * @param leaseTime the lease, default 30 s
	 * @return this builder
	 */
	public B leaseTime(Duration leaseTime) {
		this.leaseTime = leaseTime;
		return self();
	}

	/**
	 * Set how often the watchdog renews a held grant; at most half the lease.
	 * @param renewalInterval the interval, default a third of the lease
	 * @return this builder
	 */
	public B renewalInterval(Duration renewalInterval) {
		this.renewalInterval = renewalInterval;
		return self();
	}

	/**
	 * Set how a waiter learns that a lock was released.
	 * @param waitStrategy the strategy, default {@link WaitStrategy#PUB_SUB}
	 * @return this builder
	 */
	public B waitStrategy(WaitStrategy waitStrategy) {
		this.waitStrategy = waitStrategy;
		return self();
	}

	/**
	 * Set the longest pause between two attempts of a waiter (jittered between half and all of
	 * it, and never longer than the holder's remaining lease).
	 * @param retryInterval the interval, default 1 s with pub/sub and 100 ms when polling
	 * @return this builder
	 */
	public B retryInterval(Duration retryInterval) {
		this.retryInterval = retryInterval;
		return self();
	}

	/**
	 * Set how long the last fencing token of a key is kept after a grant. Tokens grow even after
	 * it is gone (they follow the Redis server clock); keeping it covers a backward step of that
	 * clock shorter than the retention.
	 * @param fenceRetentionTime the retention, default 10 minutes
	 * @return this builder
	 */
	public B fenceRetentionTime(Duration fenceRetentionTime) {
		this.fenceRetentionTime = fenceRetentionTime;
		return self();
	}

	/**
	 * Set the listener told about every grant (metrics, events).
	 * @param listener the listener, default none
	 * @return this builder
	 */
	public B listener(LockListener listener) {
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		return self();
	}

	/**
	 * Set the id that starts every owner value the registry writes, to tell in Redis which
	 * instance holds a lock.
	 * @param instanceId the id, default the process id and a random part
	 * @return this builder
	 */
	public B instanceId(String instanceId) {
		this.instanceId = instanceId;
		return self();
	}

	/**
	 * Set how far a contended lock may pass between threads of this process without a Redis
	 * round trip (lock cohorting): at most {@code maxHandoffs} times in a row, and only until
	 * {@code maxTime} after Redis granted it; then it is released in Redis so that other
	 * processes get their turn. Each handoff gives the next holder a larger fencing token. Only
	 * locks renewed by the watchdog are handed over. A Redlock registry never hands over.
	 * @param maxHandoffs how many handoffs in a row, 0 to turn local handoff off, at most
	 * {@value #MAX_LOCAL_HANDOFFS}; default {@value #DEFAULT_MAX_LOCAL_HANDOFFS}
	 * @param maxTime how long after Redis granted it a lock may still be handed over (default 50 ms)
	 * @return this builder
	 * @throws InvalidRegistryOptionException if a limit is out of range
	 */
	public B localHandoff(int maxHandoffs, Duration maxTime) {
		this.localHandoff = new LocalHandoffLimits(maxHandoffs, maxTime);
		return self();
	}

	/**
	 * Set the longest lease the registry grants: a fixed lease, an extension or a hold-at-least
	 * beyond it is refused with an {@code IllegalArgumentException} before anything reaches
	 * Redis, since a holder that dies keeps the lock that long (reliability catalogue B13).
	 * @param maxLeaseTime the longest lease, at least the lease time and at most 365 days;
	 * default 24 hours
	 * @return this builder
	 */
	public B maxLeaseTime(Duration maxLeaseTime) {
		this.maxLeaseTime = maxLeaseTime;
		return self();
	}

	/**
	 * Set the longest lock key, in UTF-8 bytes: a longer key is refused with a
	 * {@code LockKeyException} before anything reaches Redis, unless
	 * {@link #hashLongKeys(boolean)} (reliability catalogue B6).
	 * @param maxKeyBytes the longest key, between {@value #MIN_MAX_KEY_BYTES} and 1 MiB; default
	 * {@value #DEFAULT_MAX_KEY_BYTES}
	 * @return this builder
	 */
	public B maxKeyBytes(int maxKeyBytes) {
		this.maxKeyBytes = maxKeyBytes;
		return self();
	}

	/**
	 * Set whether a key longer than {@link #maxKeyBytes(int)} is locked as its start and its
	 * SHA-256 digest instead of being refused. Equal keys give equal locks; leases, events and
	 * {@code /actuator/locks} show the digest form.
	 * @param hashLongKeys whether to digest long keys; default {@code false}
	 * @return this builder
	 */
	public B hashLongKeys(boolean hashLongKeys) {
		this.longKeys = hashLongKeys ? KeyLimit.Overflow.HASH : KeyLimit.Overflow.REFUSE;
		return self();
	}

	/**
	 * Return the longest lease the registry will grant: {@link #maxLeaseTime(Duration)}, unless a
	 * kind of registry needs it shorter.
	 * @return the longest lease
	 */
	protected Duration grantableMaxLeaseTime() {
		return this.maxLeaseTime;
	}

	/**
	 * Return the renewal interval used when none is set: a third of the lease.
	 * @param leaseTime the lease
	 * @return the default renewal interval
	 */
	public static Duration defaultRenewalInterval(Duration leaseTime) {
		return RegistrySettings.defaultRenewalInterval(leaseTime);
	}

	/**
	 * Return the key prefix.
	 * @return the prefix
	 */
	protected String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Return the lease time.
	 * @return the lease time
	 */
	protected Duration leaseTime() {
		return this.leaseTime;
	}

	/**
	 * Return whether a release that someone waits for is published: the wait strategy is
	 * {@link WaitStrategy#PUB_SUB}.
	 * @return whether releases are published
	 */
	protected boolean publishesReleases() {
		return this.waitStrategy == WaitStrategy.PUB_SUB;
	}

	/**
	 * Return the fence retention time, checked.
	 * @return the retention
	 * @throws InvalidRegistryOptionException if it is not positive
	 */
	protected Duration fenceRetentionTime() {
		if (this.fenceRetentionTime == null || this.fenceRetentionTime.isNegative()
				|| this.fenceRetentionTime.isZero()) {
			throw new InvalidRegistryOptionException("fenceRetentionTime", this.fenceRetentionTime,
					"fenceRetentionTime must be positive but was '" + this.fenceRetentionTime + "'");
		}
		return this.fenceRetentionTime;
	}

	/**
	 * Return the validated settings: the lease and renewal interval are checked here, the local
	 * handoff limits when they are set.
	 * @param driftFactor the drift factor, checked by the builder that sets it
	 * @param minValidity the minimum validity of a fresh grant
	 * @return the settings
	 * @throws InvalidRegistryOptionException naming the option that is invalid
	 */
	protected RegistrySettings settings(double driftFactor, Duration minValidity) {
		WatchdogTiming timing = WatchdogTiming.of(this.leaseTime, this.renewalInterval);
		Duration retry = (this.retryInterval != null) ? this.retryInterval
				: RegistrySettings.defaultRetryInterval(this.waitStrategy);
		String id = (this.instanceId != null) ? this.instanceId : RegistrySettings.newInstanceId();
		return new RegistrySettings(this.leaseTime, timing.renewalInterval(), this.waitStrategy, retry, this.listener,
				id, driftFactor, minValidity, this.localHandoff.maxHandoffs(), this.localHandoff.maxTime(),
				grantableMaxLeaseTime(), new KeyLimit(this.maxKeyBytes, this.longKeys));
	}

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

}

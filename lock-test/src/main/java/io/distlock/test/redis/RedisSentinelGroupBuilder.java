package io.distlock.test.redis;

import java.time.Duration;

import io.distlock.test.network.FaultProxy;

/**
 * Describes a {@link RedisSentinelGroup} before it starts: one replica, a 10 s failover timeout
 * and no proxy unless told otherwise.
 */
public final class RedisSentinelGroupBuilder {

	private int replicas = 1;

	private Duration failoverTimeout = Duration.ofSeconds(10);

	private boolean replicationThroughProxy;

	RedisSentinelGroupBuilder() {
	}

	/**
	 * Set how many replicas follow the master.
	 * @param replicas at least one, so that there is something to fail over to
	 * @return this builder
	 */
	public RedisSentinelGroupBuilder replicas(int replicas) {
		if (replicas < 1) {
			throw new IllegalArgumentException("A Sentinel group needs at least one replica but was " + replicas);
		}
		this.replicas = replicas;
		return this;
	}

	/**
	 * Set Sentinel's {@code failover-timeout}: how long a failover may take, twice the pause
	 * between two attempts, and how long before a replica that follows another address is
	 * repointed.
	 * @param failoverTimeout the timeout
	 * @return this builder
	 */
	public RedisSentinelGroupBuilder failoverTimeout(Duration failoverTimeout) {
		this.failoverTimeout = failoverTimeout;
		return this;
	}

	/**
	 * Let the first replica follow the master through a {@link FaultProxy}.
	 * @return this builder
	 */
	public RedisSentinelGroupBuilder replicationThroughProxy() {
		this.replicationThroughProxy = true;
		return this;
	}

	/**
	 * Start the servers, wait until every replica is connected, start the sentinels and wait
	 * until each knows every replica and the other two.
	 * @return the running group
	 */
	public RedisSentinelGroup start() {
		return RedisSentinelGroup.start(this.replicas, this.replicationThroughProxy, this.failoverTimeout);
	}

}

package io.distlock.contract;

import java.time.Duration;

import io.distlock.core.WaitStrategy;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.redis.RedisLockRegistry;

/**
 * The whole contract, and what only Redis shows, with {@link WaitStrategy#POLLING}: waiters that
 * never subscribe and only retry (every 100 ms, jittered) keep every promise that waiters woken
 * by a release keep: a fair waiter takes its place in the queue and a waiting writer holds back
 * new readers, as with pub/sub (both were broken once: a polling waiter sent the store no wait
 * hint). The store's hooks are those of {@link RedisLockRegistryContractIntegrationTests}.
 */
class PollingRedisLockRegistryContractIntegrationTests extends RedisLockRegistryContractIntegrationTests {

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return RedisLockRegistry.builder(redis.server().connectionFactory())
			.leaseTime(leaseTime)
			.waitStrategy(WaitStrategy.POLLING)
			.build();
	}

}

package io.distlock.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.WaitStrategy;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

/**
 * The whole contract with {@link WaitStrategy#POLLING}: waiters that never subscribe and only
 * retry (every 100 ms, jittered) keep every promise that waiters woken by a release keep: a
 * fair waiter takes its place in the queue and a waiting writer holds back new readers, as with
 * pub/sub (both were broken once: a polling waiter sent the store no wait hint).
 */
class PollingRedisLockRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return RedisLockRegistry.builder(redis.server().connectionFactory())
			.leaseTime(leaseTime)
			.waitStrategy(WaitStrategy.POLLING)
			.build();
	}

	@Override
	public void deleteInStore(AbstractLockRegistry registry, String key) {
		redis.server().template().delete(lockKey(registry, key));
	}

	@Override
	public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		return Boolean.TRUE.equals(redis.server().template().hasKey(lockKey(registry, key)));
	}

	private static String lockKey(AbstractLockRegistry registry, String key) {
		return ((RedisLockRegistry) registry).getKeyPrefix() + "{" + key + "}";
	}

}

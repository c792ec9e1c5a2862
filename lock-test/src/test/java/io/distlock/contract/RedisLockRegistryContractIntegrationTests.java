package io.distlock.contract;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.contract.AbstractLockRegistryContractTests;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

/**
 * The contract on a real {@code redis-server}; each registry is a separate client, as another
 * process would be.
 */
class RedisLockRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Override
	protected AbstractLockRegistry createRegistry(Duration leaseTime) {
		return RedisLockRegistry.builder(redis.server().connectionFactory()).leaseTime(leaseTime).build();
	}

	@Override
	protected void deleteInStore(AbstractLockRegistry registry, String key) {
		redis.server().template().delete(((RedisLockRegistry) registry).getKeyPrefix() + "{" + key + "}");
	}

	@Override
	protected boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		return Boolean.TRUE.equals(
				redis.server().template().hasKey(((RedisLockRegistry) registry).getKeyPrefix() + "{" + key + "}"));
	}

}

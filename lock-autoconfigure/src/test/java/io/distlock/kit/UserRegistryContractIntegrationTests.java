package io.distlock.kit;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.boot.EmbeddedRedis;
import io.distlock.test.contract.AbstractLockRegistryContractTests;
import io.distlock.test.redis.RedisServer;

/**
 * A user's run of the published contract against a registry they build themselves (here a
 * {@link RedisLockRegistry} with a key prefix of their own), on the kit's one-annotation Redis.
 */
@SpringBootTest(classes = UserRegistryContractIntegrationTests.Application.class)
@EmbeddedRedis
class UserRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	private static final String PREFIX = "user-app:locks:";

	@Autowired
	RedisConnectionFactory connectionFactory;

	@Autowired
	RedisServer redis;

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return RedisLockRegistry.builder(this.connectionFactory).keyPrefix(PREFIX).leaseTime(leaseTime).build();
	}

	@Override
	public void deleteInStore(AbstractLockRegistry registry, String key) {
		this.redis.template().delete(PREFIX + "{" + key + "}");
	}

	@Override
	public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		return Boolean.TRUE.equals(this.redis.template().hasKey(PREFIX + "{" + key + "}"));
	}

	@SpringBootConfiguration
	@ImportAutoConfiguration(DataRedisAutoConfiguration.class)
	static class Application {

	}

}

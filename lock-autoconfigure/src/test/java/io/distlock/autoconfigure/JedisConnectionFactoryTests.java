package io.distlock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockRegistry;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.memory.InMemoryLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Jedis as the application's Redis client the starter refuses to start, because it bounds
 * every Redis call by the caller's deadline on Lettuce's asynchronous API; the failure analysis
 * says so and what to change. An application that defines its own {@link LockRegistry} is left
 * alone.
 */
class JedisConnectionFactoryTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner jedis() {
		return DistlockRunners.withRedis(redis.server()).withPropertyValues("spring.data.redis.client-type=jedis");
	}

	@Test
	void jedisConnectionFactoryFailsAtStartupNamingLettuce() {
		jedis().withBean("reports", Reports.class).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).hasRootCauseInstanceOf(LettuceRequiredException.class);
			FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(failure);
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).startsWith("distlock needs Lettuce")
				.contains("'" + JedisConnectionFactory.class.getName() + "'");
			assertThat(analysis.getAction()).contains("remove the Jedis dependency")
				.contains("spring.data.redis.client-type")
				.contains("define your own LockRegistry bean");
		});
	}

	@Test
	void lettuceIsTheDefaultEvenWithJedisOnTheClassPath() {
		DistlockRunners.withRedis(redis.server()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RedisLockRegistry.class);
		});
	}

	@Test
	void ownLockRegistryBeanStartsWithJedis() {
		jedis().withBean("userRegistry", LockRegistry.class, InMemoryLockRegistry::new)
			.withBean("reports", Reports.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
				assertThat(context).doesNotHaveBean(RedisLockRegistry.class);
				assertThat(context.getBean(Reports.class).daily()).isEqualTo("done");
			});
	}

	static class Reports {

		@DistributedLock
		public String daily() {
			return "done";
		}

	}

}

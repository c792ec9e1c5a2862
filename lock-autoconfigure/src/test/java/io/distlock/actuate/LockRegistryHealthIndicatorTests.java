package io.distlock.actuate;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LockRegistryHealthIndicatorTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void upWithDetailsWhileRedisAnswers() {
		try (RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory());
				LockLease lease = registry.acquire("health:1", Duration.ZERO)) {
			Health health = new LockRegistryHealthIndicator(registry).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("held", 1)
				.containsEntry("lost", 0L)
				.containsEntry("lostRecently", false);
		}
	}

	@Test
	void downWhenRedisDoesNotAnswerAndReportsTheLoss() {
		LettuceConnectionFactory factory = redis.server().newConnectionFactory(Duration.ofMillis(300));
		try (RedisLockRegistry registry = RedisLockRegistry.builder(factory).leaseTime(Duration.ofMillis(600)).build()) {
			LockLease lease = registry.acquire("health:2", Duration.ZERO);
			redis.server().kill();
			await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
			Health health = new LockRegistryHealthIndicator(registry).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("lost", 1L).containsEntry("lostRecently", true);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void downWhenTheWatchdogStopped() {
		RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory());
		registry.close();
		Health health = new LockRegistryHealthIndicator(registry).health(true);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("error")).asString().contains("watchdog stopped");
	}

}

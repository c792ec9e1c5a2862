package io.distlock.sample.inventory;

import com.redis.testcontainers.RedisContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * PostgreSQL and Redis in containers, wired by {@code @ServiceConnection}: for people with a
 * Docker engine who prefer containers to the embedded servers.
 */
@TestConfiguration(proxyBeanMethods = false)
class ContainersConfiguration {

	@Bean
	@ServiceConnection
	PostgreSQLContainer postgres() {
		return new PostgreSQLContainer("postgres:18-alpine");
	}

	@Bean
	@ServiceConnection(name = "redis")
	RedisContainer redis() {
		return new RedisContainer("redis:7.4-alpine");
	}

}

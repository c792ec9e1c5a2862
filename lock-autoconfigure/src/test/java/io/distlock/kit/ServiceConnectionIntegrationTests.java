package io.distlock.kit;

import java.time.Duration;

import com.redis.testcontainers.RedisContainer;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on a connection that comes from a user's {@code @ServiceConnection} container
 * rather than from the test kit; skipped where no Docker engine runs.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(classes = ServiceConnectionIntegrationTests.Application.class,
		properties = "spring.data.redis.port=1")
class ServiceConnectionIntegrationTests {

	@Autowired
	LockRegistry registry;

	@Test
	void theRegistryLocksOnTheContainer() {
		try (LockLease lease = this.registry.acquire("kit:container", Duration.ofSeconds(2))) {
			assertThat(lease.isValid()).isTrue();
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Containers.class)
	static class Application {

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Containers {

		@Bean
		@ServiceConnection
		RedisContainer redis() {
			return new RedisContainer(DockerImageName.parse("redis:7.4"));
		}

	}

}

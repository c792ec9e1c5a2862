package io.distlock.kit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockRegistry;
import io.distlock.test.boot.EmbeddedRedis;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user's test, as the test kit promises it: one annotation gives the application a real
 * {@code redis-server}; the starter's registry and the annotation run on it, and a wrong
 * {@code spring.data.redis.port} does not matter because the connection details win.
 */
@SpringBootTest(classes = EmbeddedRedisIntegrationTests.Application.class,
		properties = { "spring.data.redis.port=1", "spring.main.banner-mode=off",
				// The module's tests have Boot's R2DBC auto-configuration on the classpath; this
				// application has no R2DBC database.
				"spring.autoconfigure.exclude=org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration" })
@EmbeddedRedis
@Timeout(60)
class EmbeddedRedisIntegrationTests {

	@Autowired
	RedisServer redis;

	@Autowired
	RedisConnectionFactory connectionFactory;

	@Autowired
	LockRegistry registry;

	@Autowired
	Counter counter;

	@Test
	void theApplicationConnectsToTheEmbeddedServer() {
		assertThat(this.redis.isRunning()).isTrue();
		assertThat(((LettuceConnectionFactory) this.connectionFactory).getPort()).isEqualTo(this.redis.port());
		try (var lease = this.registry.acquire("kit:" + this.redis.port(), Duration.ofSeconds(1))) {
			assertThat(this.redis.template().keys("distlock:*")).isNotEmpty();
		}
	}

	@Test
	void theAnnotatedMethodRunsUnderTheLock() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				futures.add(executor.submit(() -> {
					for (int j = 0; j < 50; j++) {
						this.counter.increment("stock:1");
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		// A read-modify-write that is not atomic: only mutual exclusion keeps every increment.
		assertThat(this.counter.value()).isEqualTo(200);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Counter.class)
	static class Application {

	}

	public static class Counter {

		private long value;

		@DistributedLock(key = "#key", waitTime = "10s")
		public void increment(String key) {
			long read = this.value;
			Thread.onSpinWait();
			this.value = read + 1;
		}

		public long value() {
			return this.value;
		}

	}

}

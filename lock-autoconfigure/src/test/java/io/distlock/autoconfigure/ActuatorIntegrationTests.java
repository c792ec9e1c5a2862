package io.distlock.autoconfigure;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import io.distlock.annotation.DistributedLock;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real web application with Actuator: the {@code distlock.*} meters at
 * {@code /actuator/metrics} and {@code /actuator/prometheus}, a held lock at
 * {@code /actuator/locks}, and the lock store's health.
 */
@Timeout(90)
class ActuatorIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ActuatorClient actuator = new ActuatorClient();

	@Test
	void metersEndpointAndHealthDescribeTheLocks() throws Exception {
		try (ConfigurableApplicationContext context = start("never")) {
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			Reports reports = context.getBean(Reports.class);
			reports.quick("daily");
			reports.quick("weekly");

			assertThat(this.actuator.get(base + "/actuator/metrics/distlock.acquire")).contains("\"name\":\"distlock.acquire\"")
				.contains("\"statistic\":\"COUNT\",\"value\":2.0")
				.contains("Reports.quick");
			assertThat(this.actuator.get(base + "/actuator/prometheus"))
				.contains("distlock_acquire_seconds_count{lock_name=\"Reports.quick\",outcome=\"acquired\"} 2")
				.contains("distlock_release_total{lock_name=\"Reports.quick\",outcome=\"released\"} 2.0")
				// The evaluated keys never become tags.
				.doesNotContain("daily");

			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> reports.slow("monthly", release));
			awaitHeld(base);
			String locks = this.actuator.get(base + "/actuator/locks");
			assertThat(locks).contains("\"name\":\"Reports.slow\"")
				.contains("\"method\":\"Reports.slow(String, CountDownLatch)\"")
				.contains("\"keys\":[\"'report:' + #name\"]")
				.contains("\"key\":\"******\"")
				.contains("\"fencingToken\":")
				.doesNotContain("report:monthly");
			release.countDown();
			holding.get(10, TimeUnit.SECONDS);

			assertThat(this.actuator.get(base + "/actuator/health/distlock")).contains("\"status\":\"UP\"")
				.contains("\"held\":0");
		}
	}

	@Test
	void keysAreShownWhenTheEndpointIsAllowedTo() throws Exception {
		try (ConfigurableApplicationContext context = start("always")) {
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			Reports reports = context.getBean(Reports.class);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> reports.slow("yearly", release));
			awaitHeld(base);
			assertThat(this.actuator.get(base + "/actuator/locks")).contains("\"key\":\"report:yearly\"");
			release.countDown();
			holding.get(10, TimeUnit.SECONDS);
		}
	}

	private ConfigurableApplicationContext start(String showValues) {
		return new SpringApplicationBuilder(WebApp.class).properties("server.port=0",
				"spring.data.redis.port=" + redis.server().port(),
				"management.endpoints.web.exposure.include=health,metrics,prometheus,locks",
				"management.endpoint.health.show-details=always", "management.endpoint.locks.show-values=" + showValues,
				"spring.main.banner-mode=off",
				// The module's tests have Boot's R2DBC auto-configuration on the classpath; this
				// application has no R2DBC database.
				"spring.autoconfigure.exclude=org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration")
			.run();
	}

	private void awaitHeld(String base) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!this.actuator.get(base + "/actuator/locks").contains("\"held\":[{")) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("No lock appeared at /actuator/locks");
			}
			Thread.sleep(20);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Reports.class)
	static class WebApp {

	}

	public static class Reports {

		@DistributedLock(key = "'report:' + #name")
		public void quick(String name) {
		}

		@DistributedLock(key = "'report:' + #name")
		public void slow(String name, CountDownLatch release) {
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}

package io.distlock.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No dead panels: every metric that the Grafana dashboard or an alert rule in
 * {@code docs/dashboards} queries is produced by the starter. A web application with
 * Prometheus runs a short scenario (acquisitions, a timeout, a skip, renewals, a lost lock) on a
 * real {@code redis-server}; then {@code /actuator/prometheus} must expose each queried name.
 */
@Timeout(90)
class DashboardMetricsIntegrationTests {

	private static final Path DASHBOARDS = Path.of("..", "docs", "dashboards");

	private static final Pattern METRIC = Pattern.compile("\\bdistlock_[a-z0-9_]+");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ActuatorClient actuator = new ActuatorClient();

	@Test
	void everyMetricTheDashboardAndTheAlertsQueryIsProduced() throws Exception {
		Set<String> queried = new TreeSet<>();
		queried.addAll(metricsIn(DASHBOARDS.resolve("distlock-grafana.json")));
		queried.addAll(metricsIn(DASHBOARDS.resolve("distlock-alerts.yml")));
		// The files query each kind of meter: a timer's histogram, a long-task timer, counters.
		assertThat(queried).contains("distlock_acquire_seconds_bucket", "distlock_active_seconds_max",
				"distlock_lost_total", "distlock_renewal_total");

		try (ConfigurableApplicationContext context = start()) {
			runScenario(context);
			String scrape = this.actuator.get("http://localhost:" + context.getEnvironment().getProperty("local.server.port")
					+ "/actuator/prometheus");
			Set<String> exposed = exposedNames(scrape);
			assertThat(queried).allSatisfy((name) -> assertThat(exposed).as("exposed metric names").contains(name));
			// The detector fires on a name the starter does not produce.
			assertThat(exposed).doesNotContain("distlock_not_a_meter_total");
			// The timeout outcome the rules filter on was produced too. (A renewal 'failed' outcome needs
			// a store error, not a deleted key, which the engine reports as lost; the name is checked above.)
			assertThat(scrape).contains("outcome=\"timeout\"");
		}
	}

	private void runScenario(ConfigurableApplicationContext context) throws Exception {
		Jobs jobs = context.getBean(Jobs.class);
		LockRegistry registry = context.getBean(LockRegistry.class);
		jobs.quick("a");
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Void> holding = CompletableFuture.runAsync(() -> jobs.slow(release));
		await().atMost(Duration.ofSeconds(10)).until(jobs::hasStarted);
		// Contention: one caller times out, one is skipped.
		CompletableFuture.runAsync(() -> {
			try {
				jobs.impatient();
			}
			catch (RuntimeException expected) {
				// the timeout is what this step produces
			}
		}).get(10, TimeUnit.SECONDS);
		jobs.skipped();
		// Renewals happen while the slow job holds (lease 300ms, renewed every 100ms).
		Thread.sleep(400);
		release.countDown();
		holding.get(10, TimeUnit.SECONDS);
		// A lock deleted behind its holder's back: the renewal fails and the lease is lost.
		LockLease lease = registry.acquire("dashboards:lost", Duration.ofSeconds(1));
		redis.server().template().delete("distlock:{dashboards:lost}");
		await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
	}

	private static Set<String> metricsIn(Path file) throws IOException {
		Set<String> names = new TreeSet<>();
		Matcher matcher = METRIC.matcher(Files.readString(file));
		while (matcher.find()) {
			names.add(matcher.group());
		}
		return names;
	}

	private static Set<String> exposedNames(String scrape) {
		Set<String> names = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			if (!line.startsWith("#") && !line.isBlank()) {
				names.add(line.split("[{ ]", 2)[0]);
			}
		}
		return names;
	}

	private ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(WebApp.class).properties("server.port=0",
				"spring.data.redis.port=" + redis.server().port(), "distlock.lease-time=300ms",
				"management.endpoints.web.exposure.include=prometheus", "spring.main.banner-mode=off",
				// The module's tests have Boot's R2DBC auto-configuration on the classpath; this
				// application has no R2DBC database.
				"spring.autoconfigure.exclude=org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration")
			.run();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Jobs.class)
	static class WebApp {

	}

	public static class Jobs {

		private final CountDownLatch started = new CountDownLatch(1);

		public boolean hasStarted() {
			return this.started.getCount() == 0;
		}

		@DistributedLock(key = "'report:' + #name")
		public void quick(String name) {
		}

		@DistributedLock(key = "'nightly'")
		public void slow(CountDownLatch release) {
			this.started.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@DistributedLock(key = "'nightly'", waitTime = "50ms")
		public void impatient() {
		}

		@DistributedLock(key = "'nightly'", waitTime = "0s", onFailure = OnFailure.SKIP)
		public void skipped() {
		}

	}

}

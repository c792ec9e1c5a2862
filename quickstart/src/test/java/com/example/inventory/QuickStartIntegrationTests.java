package com.example.inventory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.example.inventory.InventoryService.Reservation;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The README's Quick start, run as a user would run it: this module's pom, Java and
 * {@code application.yml} are the README's blocks (checked by {@code DocumentationSnippetsTests}),
 * started against a real {@code redis-server}. The lock excludes, and the meters, the locks
 * endpoint and the health component the README promises are there.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@Timeout(120)
class QuickStartIntegrationTests {

	private static RedisServer redis;

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private InventoryService inventory;

	@Autowired
	private LockRegistry registry;

	@BeforeAll
	static void startRedis() {
		redis = RedisServer.start();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry properties) {
		properties.add("spring.data.redis.host", () -> redis.host());
		properties.add("spring.data.redis.port", () -> redis.port());
	}

	@Test
	void theQuickStartTakesTheLockAndShowsItsMetersEndpointAndHealth() throws Exception {
		assertThat(metricNames()).as("meters before the first lock").noneMatch((name) -> name.startsWith("distlock."));

		this.inventory.restock(42, 50);
		ExecutorService buyers = Executors.newFixedThreadPool(8);
		try {
			List<Future<Reservation>> reservations = buyers
				.invokeAll(Collections.nCopies(60, () -> this.inventory.reserve(42, 1)));
			long reserved = 0;
			for (Future<Reservation> reservation : reservations) {
				reserved += reservation.get(30, TimeUnit.SECONDS).reserved();
			}
			// 60 read-check-write calls from 8 threads on stock 50: exact only because the lock excludes.
			assertThat(reserved).isEqualTo(50);
			assertThat(redis.template().opsForValue().get("stock:42")).isEqualTo("0");
		}
		finally {
			buyers.shutdownNow();
		}

		// The metrics table of docs/operations.md: what exists after locks were taken and released, and what not yet.
		assertThat(metricNames()).filteredOn((name) -> name.startsWith("distlock."))
			.containsExactlyInAnyOrder("distlock.acquire", "distlock.active", "distlock.held", "distlock.release",
					"distlock.acquisition", "distlock.acquisition.active", "distlock.holding",
					"distlock.holding.active");
		String acquire = get("/actuator/metrics/distlock.acquire?tag=lock.name:InventoryService.reserve");
		assertThat(JsonPath.<List<Double>>read(acquire, "$.measurements[?(@.statistic=='COUNT')].value"))
			.containsExactly(60.0);
		assertThat(get("/actuator/prometheus"))
			.contains("distlock_acquire_seconds_count{lock_name=\"InventoryService.reserve\",outcome=\"acquired\"} 60");

		// Hold the lock of product 7 as another instance would: the annotated method waits its 2s, then gives up.
		try (LockLease held = this.registry.acquire("stock:7", Duration.ofSeconds(2))) {
			String locks = get("/actuator/locks");
			assertThat(JsonPath.<List<String>>read(locks, "$.definitions[*].name"))
				.containsExactlyInAnyOrder("InventoryService.reserve", "InventoryService.reconcile");
			assertThat(JsonPath.<List<Number>>read(locks, "$.held[*].fencingToken")).singleElement()
				.satisfies((token) -> assertThat(token.longValue()).isEqualTo(held.fencingToken()));
			// From another thread: on this one the held lock would simply be re-entered.
			long start = System.nanoTime();
			CompletableFuture<Reservation> other = CompletableFuture.supplyAsync(() -> this.inventory.reserve(7, 1));
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> other.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockAcquisitionException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(1900),
					Duration.ofMillis(4000));
		}
		assertThat(metricNames()).contains("distlock.acquire");
		assertThat(get("/actuator/metrics/distlock.acquire?tag=outcome:timeout")).contains("\"COUNT\"");

		String health = get("/actuator/health/distlock");
		assertThat(JsonPath.<String>read(health, "$.status")).isEqualTo("UP");
	}

	@Test
	void withoutShowComponentsTheHealthComponentIsHidden() throws Exception {
		try (ConfigurableApplicationContext hidden = new SpringApplicationBuilder(InventoryApplication.class).run(
				"--server.port=0", "--spring.data.redis.host=" + redis.host(),
				"--spring.data.redis.port=" + redis.port(), "--management.endpoint.health.show-components=never",
				"--spring.main.banner-mode=off")) {
			String base = "http://localhost:" + hidden.getEnvironment().getProperty("local.server.port");
			assertThat(status(base + "/actuator/health/distlock")).isEqualTo(404);
			assertThat(status(base + "/actuator/health")).isEqualTo(200);
		}
	}

	private List<String> metricNames() throws Exception {
		return JsonPath.read(get("/actuator/metrics"), "$.names");
	}

	private String get(String path) throws Exception {
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("GET " + path).isEqualTo(200);
		return response.body();
	}

	private int status(String url) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
			.statusCode();
	}

}

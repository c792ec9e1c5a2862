package io.distlock.sample.inventory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.reservation.Strategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user trying the sample by hand gets for a request it cannot serve: an order for a
 * product that does not exist answers 404 whatever the strategy (not a 500, an "out of stock" or
 * a "stale fencing token"), and a refused request says why in its body.
 */
@Timeout(120)
class OrderRequestsIntegrationTests {

	private static final long NO_SUCH_PRODUCT = 987_654_321L;

	private static ConfigurableApplicationContext application;

	private static String base;

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void start() {
		application = InventoryServers.start(true);
		base = "http://localhost:" + application.getEnvironment().getProperty("local.server.port");
	}

	@AfterAll
	static void stop() {
		application.close();
	}

	@ParameterizedTest
	@EnumSource(Strategy.class)
	void anOrderForAProductThatDoesNotExistIsNotFound(Strategy strategy) throws Exception {
		HttpResponse<String> response = post("/api/products/" + NO_SUCH_PRODUCT + "/orders?strategy=" + strategy
				+ "&quantity=1", "");
		assertThat(response.statusCode()).isEqualTo(404);
		assertThat(response.body()).contains("No product " + NO_SUCH_PRODUCT);
	}

	@Test
	void aRefusedFlashSaleSaysWhy() throws Exception {
		HttpResponse<String> response = post("/api/flash-sales", "{\"strategy\":\"LOCK\",\"buyers\":0,\"stock\":5}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).contains("buyers must be between 1 and");
	}

	private HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}

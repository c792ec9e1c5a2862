package io.distlock.sample.reactive;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.reactive.function.client.WebClient;

import io.distlock.sample.reactive.product.Products.Product;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one-command start: with no Redis and no R2DBC URL configured, the application starts an
 * embedded {@code redis-server} and an embedded PostgreSQL and serves reservations on them.
 */
@Timeout(60)
class EmbeddedServersIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	@Test
	void startsOnEmbeddedServersWhenNoneAreConfigured() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ReactiveInventoryApplication.class)
			.run("--server.port=0")) {
			assertThat(context.getEnvironment().getProperty("spring.r2dbc.url")).startsWith("r2dbc:postgresql://localhost:");
			assertThat(context.getEnvironment().getProperty("spring.data.redis.port")).isNotBlank();
			WebClient client = WebClient
				.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port"));
			Product product = client.post()
				.uri("/products")
				.bodyValue(Map.of("name", "kettle", "stock", 1))
				.retrieve()
				.bodyToMono(Product.class)
				.block(TIMEOUT);
			int first = reserve(client, product.id());
			int second = reserve(client, product.id());
			assertThat(first).isEqualTo(201);
			assertThat(second).isEqualTo(409);
			Product after = client.get().uri("/products/{id}", product.id()).retrieve().bodyToMono(Product.class).block(TIMEOUT);
			assertThat(after.stock()).isZero();
			assertThat(after.sold()).isEqualTo(1);
		}
	}

	private static int reserve(WebClient client, long productId) {
		return client.post()
			.uri("/products/{id}/reservations", productId)
			.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
			.block(TIMEOUT);
	}

}

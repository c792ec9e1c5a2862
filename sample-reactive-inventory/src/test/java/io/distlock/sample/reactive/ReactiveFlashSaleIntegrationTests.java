package io.distlock.sample.reactive;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.channel.ChannelOption;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import io.distlock.sample.reactive.product.Products.Product;
import io.distlock.sample.reactive.reservation.Strategy;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flash sale over HTTP: 200 concurrent buyers on two application instances (one real
 * {@code redis-server}, one real PostgreSQL) for one product with 50 in stock. The lock with
 * the database guard sells exactly 50; the lock alone also sells exactly 50; neither oversells
 * (the negative control, which must fire). BlockHound watches every thread that must not block
 * (the HTTP server's, the Redis driver's, the R2DBC driver's, Reactor's) during each sale.
 */
@Timeout(120)
class ReactiveFlashSaleIntegrationTests {

	private static final int STOCK = 50;

	private static final int BUYERS = 200;

	private static final Duration SALE_TIMEOUT = Duration.ofSeconds(60);

	private static final List<String> blockingCalls = new CopyOnWriteArrayList<>();

	private static RedisServer redis;

	private static EmbeddedPostgres postgres;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private static ConnectionProvider connections;

	private static WebClient client;

	@BeforeAll
	static void start() throws IOException {
		BlockHound.install((builder) -> builder.blockingMethodCallback((method) -> {
			StringWriter stack = new StringWriter();
			new Exception(method + " on " + Thread.currentThread().getName()).printStackTrace(new PrintWriter(stack));
			String call = stack.toString();
			blockingCalls.add(call);
		}));
		redis = RedisServer.start();
		postgres = EmbeddedPostgres.builder().start();
		first = startInstance();
		second = startInstance();
		// One connection per buyer: the default pool would queue most of them in the client.
		connections = ConnectionProvider.builder("buyers").maxConnections(BUYERS).pendingAcquireMaxCount(-1).build();
		client = WebClient.builder()
			.clientConnector(new ReactorClientHttpConnector(
					HttpClient.create(connections).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)))
			.build();
	}

	private static ConfigurableApplicationContext startInstance() {
		return new SpringApplicationBuilder(ReactiveInventoryApplication.class).run("--server.port=0",
				"--inventory.embedded-servers=false", "--spring.data.redis.host=" + redis.host(),
				"--spring.data.redis.port=" + redis.port(),
				"--spring.r2dbc.url=r2dbc:postgresql://localhost:" + postgres.getPort() + "/postgres",
				"--spring.r2dbc.username=postgres", "--spring.r2dbc.password=postgres");
	}

	@AfterAll
	static void stop() throws IOException {
		if (connections != null) {
			connections.dispose();
		}
		if (second != null) {
			second.close();
		}
		if (first != null) {
			first.close();
		}
		if (postgres != null) {
			postgres.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@BeforeEach
	void forgetEarlierBlockingCalls() {
		blockingCalls.clear();
	}

	@Test
	void theLockWithTheDatabaseGuardSellsExactlyTheStock() {
		Sale sale = sell(Strategy.GUARDED);
		assertThat(sale.failed()).isZero();
		assertThat(sale.accepted()).isEqualTo(STOCK);
		assertThat(sale.refused()).isEqualTo(BUYERS - STOCK);
		assertThat(sale.product().sold()).isEqualTo(STOCK);
		assertThat(sale.product().stock()).isZero();
		assertNothingBlockedAThreadThatMustNot();
	}

	@Test
	void theLockAloneAlsoSellsExactlyTheStock() {
		Sale sale = sell(Strategy.LOCK_ONLY);
		assertThat(sale.failed()).isZero();
		assertThat(sale.accepted()).isEqualTo(STOCK);
		assertThat(sale.product().sold()).isEqualTo(STOCK);
		assertThat(sale.product().stock()).isZero();
		assertNothingBlockedAThreadThatMustNot();
	}

	@Test
	void negativeControlWithoutLockOrGuardTheSaleOversells() {
		Sale sale = sell(Strategy.UNGUARDED);
		assertThat(sale.failed()).isZero();
		assertThat(sale.product().sold()).as("units sold of %s in stock", STOCK).isGreaterThan(STOCK);
		assertThat(sale.accepted()).isGreaterThan(STOCK);
	}

	@Test
	void negativeControlBlockHoundSeesABlockingCallOnAThreadThatMustNotBlock() {
		Mono.fromCallable(() -> {
			Thread.sleep(1);
			return 1;
		}).subscribeOn(Schedulers.parallel()).onErrorResume((ex) -> Mono.empty()).block(Duration.ofSeconds(5));
		assertThat(blockingCalls).anySatisfy((call) -> assertThat(call).contains("Thread.sleep")
			.contains("on parallel-"));
		// The same on a Netty event loop, the kind of thread that serves the HTTP requests.
		client.get()
			.uri(baseUrl(first) + "/actuator/health")
			.exchangeToMono((response) -> Mono.fromCallable(() -> {
				Thread.sleep(1);
				return 1;
			}))
			.onErrorResume((ex) -> Mono.empty())
			.block(Duration.ofSeconds(5));
		assertThat(blockingCalls).anySatisfy((call) -> assertThat(call).contains("Thread.sleep")
			.contains("on reactor-http-"));
	}

	/**
	 * No blocking call on a non-blocking thread from the application, from distlock's reactive
	 * path, or from anything else.
	 */
	private static void assertNothingBlockedAThreadThatMustNot() {
		assertThat(blockingCalls).isEmpty();
	}

	private static Sale sell(Strategy strategy) {
		String[] instances = { baseUrl(first), baseUrl(second) };
		Product product = client.post()
			.uri(instances[0] + "/products")
			.bodyValue(Map.of("name", "flash sale " + strategy, "stock", STOCK))
			.retrieve()
			.bodyToMono(Product.class)
			.block(SALE_TIMEOUT);
		List<Integer> statuses = Flux.range(0, BUYERS)
			.flatMap((buyer) -> client.post()
				.uri(instances[buyer % 2] + "/products/{id}/reservations?strategy={strategy}", product.id(), strategy)
				.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value())),
					BUYERS)
			.collectList()
			.block(SALE_TIMEOUT);
		Product after = client.get()
			.uri(instances[0] + "/products/{id}", product.id())
			.retrieve()
			.bodyToMono(Product.class)
			.block(SALE_TIMEOUT);
		int accepted = (int) statuses.stream().filter((status) -> status == 201).count();
		int refused = (int) statuses.stream().filter((status) -> status == 409).count();
		Sale sale = new Sale(accepted, refused, statuses.size() - accepted - refused, after);
		System.out.println("Flash sale " + strategy + ": " + sale);
		return sale;
	}

	private static String baseUrl(ConfigurableApplicationContext context) {
		return "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
	}

	record Sale(int accepted, int refused, int failed, Product product) {
	}

}

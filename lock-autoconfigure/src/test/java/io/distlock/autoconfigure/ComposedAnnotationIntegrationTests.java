package io.distlock.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjLongConsumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AliasFor;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.actuate.LocksEndpoint;
import io.distlock.actuate.LocksEndpoint.DefinitionDescriptor;
import io.distlock.actuate.LocksEndpoint.LocksDescriptor;
import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.reactive.ReactiveLockContext;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.redis.RedisServerExtension;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} composed into an annotation of the application's own,
 * {@code @StockLock}, on a real Redis: the composed annotation keeps callers on two instances
 * apart (a read-sleep-write on a shared counter loses no update, and loses some without it: the
 * negative control), its attributes decide the key and the wait, it falls back and holds a
 * {@code Mono} or a {@code CompletionStage} as the plain annotation does, {@code /actuator/locks}
 * describes the merged annotation, and its mistakes stop the application.
 */
@Timeout(120)
class ComposedAnnotationIntegrationTests {

	private static final int THREADS = 4;

	private static final int INCREMENTS = 25;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server()).withBean(Stock.class);
	}

	@Test
	void aComposedAnnotationKeepsCallersOnTwoInstancesApart() throws Exception {
		assertThat(reserveOnTwoInstances(Stock::reserve)).isEqualTo(2 * THREADS * INCREMENTS);
	}

	@Test
	void negativeControlWithoutTheAnnotationLosesUpdates() throws Exception {
		assertThat(reserveOnTwoInstances(Stock::reserveWithoutLock)).isLessThan(2 * THREADS * INCREMENTS);
	}

	@Test
	void theComposedAnnotationDecidesTheKeyAndTheWaitTime() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			assertThat(stock.heldKey(42)).isEqualTo("stock:42 held=true");
			try (RedisLockRegistry other = otherInstance();
					LockLease held = other.acquire("stock:42", Duration.ZERO)) {
				// waitTime = "2s" comes from the declaration of @StockLock.
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> stock.heldKey(42))
					.withMessage("Could not acquire lock 'Stock.heldKey' for key 'stock:42' within 2000ms");
			}
		});
	}

	@Test
	void aComposedAnnotationFallsBack() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			try (RedisLockRegistry other = otherInstance(); LockLease held = other.acquire("price:5", Duration.ZERO)) {
				assertThat(stock.price(5)).isEqualTo("cached price of 5 (Could not acquire lock 'Stock.price' "
						+ "for key 'price:5' within 0ms)");
			}
			assertThat(stock.price(5)).isEqualTo("fresh price of 5");
		});
	}

	@Test
	void aComposedAnnotationHoldsAMonoUntilItCompletes() {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			StepVerifier.create(stock.reserveLater(9)).expectNext("stock:9 held=true").verifyComplete();
			assertThat(redis.server().template().hasKey("distlock:{stock:9}")).isFalse();
		});
	}

	@Test
	void aComposedAnnotationHoldsACompletionStageUntilItCompletes() throws Exception {
		runner().run((context) -> {
			Stock stock = context.getBean(Stock.class);
			CompletableFuture<String> finish = new CompletableFuture<>();
			CompletableFuture<String> reserved = stock.reserveWhenDone(3, finish).toCompletableFuture();
			assertThat(redis.server().template().hasKey("distlock:{stock:3}")).isTrue();
			finish.complete("done");
			assertThat(reserved.get(5, TimeUnit.SECONDS)).isEqualTo("done");
			await().atMost(Duration.ofSeconds(5))
				.until(() -> !redis.server().template().hasKey("distlock:{stock:3}"));
		});
	}

	@Test
	void theLocksEndpointDescribesTheMergedAnnotation() {
		runner().withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.run((context) -> {
				LocksDescriptor locks = context.getBean(LocksEndpoint.class).locks(SecurityContext.NONE);
				DefinitionDescriptor reserve = definition(locks, "Stock.reserve");
				assertThat(reserve.method()).isEqualTo("Stock.reserve(long)");
				assertThat(reserve.keys()).containsExactly("'stock:' + #productId");
				assertThat(reserve.waitTime()).isEqualTo("PT2S");
				DefinitionDescriptor price = definition(locks, "Stock.price");
				assertThat(price.waitTime()).isEqualTo("PT0S");
				assertThat(price.onFailure()).isEqualTo("FALLBACK");
				assertThat(price.fallbackMethod()).isEqualTo("cachedPrice");
			});
	}

	private static DefinitionDescriptor definition(LocksDescriptor locks, String name) {
		return locks.definitions()
			.stream()
			.filter((definition) -> definition.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No definition '" + name + "' in " + locks.definitions()));
	}

	@Test
	void aMistakeInAComposedAnnotationStopsTheApplicationNamingIt() {
		DistlockRunners.withRedis(redis.server())
			.withBean("broken", BrokenStock.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Invalid lock on bean 'broken': @DistributedLock from @StockLock on "
						+ "BrokenStock.reserve(long): attribute 'key' (@StockLock's 'value') value "
						+ "''stock:' + #productid' refers to '#productid'"));
	}

	@Test
	void aFairComposedAnnotationIsRefusedWithRedlockNamingIt() {
		try (RedisServer second = RedisServer.start(); RedisServer third = RedisServer.start()) {
			DistlockRunners.withRedis(redis.server())
				.withPropertyValues("distlock.redlock.nodes=" + uri(redis.server()) + "," + uri(second) + ","
						+ uri(third))
				.withBean("fair", FairStock.class)
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.hasStackTraceContaining("@DistributedLock from @FairStockLock on FairStock.reserve(long): "
							+ "attribute 'fair' (declared on @FairStockLock) asks for a fair lock, which LockRegistry "
							+ "bean 'distlockRedlockRegistry' (RedlockRegistry) does not offer"));
		}
	}

	private static String uri(RedisServer server) {
		return "redis://" + server.host() + ":" + server.port();
	}

	@Test
	void twoDeclarationsOnOneMethodStopTheApplication() {
		DistlockRunners.withRedis(redis.server())
			.withBean("twice", TwiceLockedStock.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Invalid lock on bean 'twice': @DistributedLock on "
						+ "TwiceLockedStock.reserve(long) is declared 2 times (directly, from @StockLock)"));
	}

	private int reserveOnTwoInstances(ObjLongConsumer<Stock> reserve) throws Exception {
		StringRedisTemplate template = redis.server().template();
		template.opsForValue().set(Stock.reservedKey(7), "0");
		TwoInstances.callConcurrently(runner(), Stock.class, THREADS, INCREMENTS, (stock) -> reserve.accept(stock, 7));
		return Integer.parseInt(template.opsForValue().get(Stock.reservedKey(7)));
	}

	private static RedisLockRegistry otherInstance() {
		// A second registry on the same Redis: another application instance.
		return new RedisLockRegistry(redis.server().connectionFactory());
	}

	private static String held(String key) {
		return key + " held=" + redis.server().template().hasKey("distlock:{" + key + "}");
	}

	// tag::composed[]
	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(waitTime = "2s")
	public @interface StockLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

	}
	// end::composed[]

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(waitTime = "0s", onFailure = OnFailure.FALLBACK)
	public @interface PriceLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

		@AliasFor(annotation = DistributedLock.class, attribute = "fallbackMethod")
		String fallback();

	}

	public static class Stock {

		static String reservedKey(long productId) {
			return "reserved:" + productId;
		}

		@StockLock("'stock:' + #productId")
		public void reserve(long productId) {
			reserveWithoutLock(productId);
		}

		public void reserveWithoutLock(long productId) {
			StringRedisTemplate template = redis.server().template();
			int read = Integer.parseInt(template.opsForValue().get(reservedKey(productId)));
			try {
				// Widens the window between the read and the write, so overlapping callers lose updates.
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			template.opsForValue().set(reservedKey(productId), Integer.toString(read + 1));
		}

		@StockLock("'stock:' + #productId")
		public String heldKey(long productId) {
			return held(LockContext.current().key());
		}

		@StockLock("'stock:' + #productId")
		public Mono<String> reserveLater(long productId) {
			// Checked off the thread that granted the lock, which may be Redis's event loop.
			return ReactiveLockContext.current()
				.publishOn(Schedulers.boundedElastic())
				.map((lease) -> held(lease.key()));
		}

		@StockLock("'stock:' + #productId")
		public CompletionStage<String> reserveWhenDone(long productId, CompletableFuture<String> finish) {
			return finish;
		}

		@PriceLock(value = "'price:' + #id", fallback = "cachedPrice")
		public String price(long id) {
			return "fresh price of " + id;
		}

		String cachedPrice(long id, LockAcquisitionException ex) {
			return "cached price of " + id + " (" + ex.getMessage() + ")";
		}

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(fair = true)
	public @interface FairStockLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

	}

	public static class FairStock {

		@FairStockLock("'stock:' + #productId")
		public void reserve(long productId) {
		}

	}

	public static class BrokenStock {

		@StockLock("'stock:' + #productid")
		public void reserve(long productId) {
		}

	}

	public static class TwiceLockedStock {

		@DistributedLock(key = "'stock:' + #productId")
		@StockLock("'stock:' + #productId")
		public void reserve(long productId) {
		}

	}

}

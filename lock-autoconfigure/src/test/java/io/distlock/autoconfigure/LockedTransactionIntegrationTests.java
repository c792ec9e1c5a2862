package io.distlock.autoconfigure;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLostException;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lock and {@code @Transactional} together, on a real database and Redis: the lock is taken
 * before the transaction begins and still held when it commits, and a transaction that ran
 * under a lock that was lost rolls back instead of committing.
 */
@Timeout(60)
class LockedTransactionIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
					TransactionManagerCustomizationAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:locked-tx-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1",
					"distlock.lease-time=900ms")
			.withBean("orders", Orders.class);
	}

	@Test
	void theLockIsStillHeldWhenTheTransactionCommits() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			orders.createTable();
			orders.place(1);
			assertThat(orders.heldAtLastCommit()).isTrue();
			assertThat(orders.count()).isEqualTo(1);
			assertThat(redis.server().template().hasKey("distlock:{order:1}")).isFalse();
		});
	}

	@Test
	void aTransactionUnderALostLockRollsBack() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			orders.createTable();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> orders.placeAndLoseTheLock(2))
				.withMessageContaining("rolled back: the lock for key 'order:2'");
			assertThat(orders.count()).isZero();
		});
	}

	@Test
	void aTransactionRollsBackWhenItsKeyVanishedBeforeTheHolderNoticed() {
		// A 30 s lease renews every 10 s: only the guard's confirmation can see the loss in time.
		runner().withPropertyValues("distlock.lease-time=30s").run((context) -> {
			Orders orders = context.getBean(Orders.class);
			orders.createTable();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> orders.placeAfterTheKeyVanished(3))
				.withMessageContaining("rolled back: the lock for key 'order:3'");
			assertThat(orders.validBeforeCommit()).as("the loss was not known locally before the commit").isTrue();
			assertThat(orders.count()).isZero();
		});
	}

	@Test
	void negativeControlWithoutTheGuardTheSameTransactionCommits() {
		// The transaction manager without Boot's customization has no guard: the same vanished
		// key goes unnoticed and the row is committed, which is what the guard prevents.
		DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
					TransactionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:unguarded-tx-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1",
					"distlock.lease-time=30s")
			.withBean("orders", Orders.class)
			.run((context) -> {
				Orders orders = context.getBean(Orders.class);
				orders.createTable();
				assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> orders.placeAfterTheKeyVanished(4))
					.as("the loss is still reported, but only at the release, after the commit");
				assertThat(orders.count()).isEqualTo(1);
			});
	}

	public static class Orders {

		private final JdbcTemplate jdbc;

		private final AtomicReference<Boolean> heldAtCommit = new AtomicReference<>();

		private final AtomicReference<Boolean> validBeforeCommit = new AtomicReference<>();

		public Orders(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		public void createTable() {
			this.jdbc.execute("create table if not exists orders (id bigint primary key)");
			this.jdbc.update("delete from orders");
		}

		public int count() {
			return this.jdbc.queryForObject("select count(*) from orders", Integer.class);
		}

		@DistributedLock(key = "'order:' + #id")
		@Transactional
		public void place(long id) {
			this.jdbc.update("insert into orders (id) values (?)", id);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					Orders.this.heldAtCommit.set(isHeld(id));
				}

			});
		}

		public Boolean heldAtLastCommit() {
			return this.heldAtCommit.get();
		}

		@DistributedLock(key = "'order:' + #id")
		@Transactional
		public void placeAndLoseTheLock(long id) throws InterruptedException {
			this.jdbc.update("insert into orders (id) values (?)", id);
			CountDownLatch lost = new CountDownLatch(1);
			LockContext.current().onLost((ex) -> lost.countDown());
			redis.server().template().delete("distlock:{order:" + id + "}");
			assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		}

		@DistributedLock(key = "'order:' + #id")
		@Transactional
		public void placeAfterTheKeyVanished(long id) {
			this.jdbc.update("insert into orders (id) values (?)", id);
			redis.server().template().delete("distlock:{order:" + id + "}");
			this.validBeforeCommit.set(LockContext.current().isValid());
		}

		public Boolean validBeforeCommit() {
			return this.validBeforeCommit.get();
		}

		private static boolean isHeld(long id) {
			RedisServer server = redis.server();
			return Boolean.TRUE.equals(server.template().hasKey("distlock:{order:" + id + "}"));
		}

	}

}

package io.distlock.autoconfigure;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.JdbcFencing;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fenced write through {@code @DistributedLock} and {@code @Transactional}, as an application
 * writes one, on two instances that share a database and a Redis: the first instance gets the
 * lock and stalls, its key vanishes from Redis before its watchdog notices (a failover that lost
 * it), the second reserves meanwhile, then the first goes on. Its fence is refused
 * ({@link StaleFencingTokenException}) and its transaction rolls back, so the second's
 * reservation stands.
 * <p>
 * The fenced service fences first, before it reads: a holder that fenced before it stalled
 * keeps a newer holder's fence, and so its read, waiting until it commits, so no stale read is
 * ever written over a newer reservation. The negative control is the same service without the
 * fence, stalled between its read and its write: its stale write lands over the second's (a lost
 * update). Both run without the lock's transaction guard (Spring Boot's transaction-manager
 * customization is left out), which would otherwise roll the stale transaction back too, as long
 * as it learns of the loss before the commit: the fence alone is under test, the defence that
 * does not depend on when the holder learns.
 */
@Timeout(60)
class FencedWriteIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final String database = "jdbc:h2:mem:fenced-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	@Test
	void aStaleHoldersWriteIsRefusedAndTheNewerReservationStands() {
		assertThat(reserveConcurrently(FencedStock.class)).as("10 less the newer holder's 2").isEqualTo(8);
	}

	@Test
	void negativeControlWithoutTheFenceTheStaleWriteOverwritesTheNewerOne() {
		assertThat(reserveConcurrently(UnfencedStock.class)).as("the stale holder's 10 - 1").isEqualTo(9);
	}

	/**
	 * Stock 10; the first instance reserves 1 and stalls under the lock; meanwhile its key
	 * vanishes from Redis (a failover that lost it) and the second instance reserves 2; then the
	 * first goes on. Return the stock in the end.
	 */
	private int reserveConcurrently(Class<? extends Reservations> service) {
		SlowCall stalled = new SlowCall();
		int[] stock = new int[1];
		instance(service, stalled).run((first) -> instance(service, new SlowCall().proceed()).run((second) -> {
			JdbcClient jdbc = first.getBean(JdbcClient.class);
			jdbc.sql("CREATE TABLE product (id BIGINT PRIMARY KEY, stock INT NOT NULL)").update();
			jdbc.sql("INSERT INTO product (id, stock) VALUES (7, 10)").update();
			CompletableFuture<Void> stale = CompletableFuture
				.runAsync(() -> first.getBean(Reservations.class).reserve(7, 1));
			assertThat(stalled.entered.await(10, TimeUnit.SECONDS)).isTrue();
			// The first holder has not noticed yet: its watchdog renews only every 10 s.
			redis.server().template().delete("distlock:{stock:7}");
			second.getBean(Reservations.class).reserve(7, 2);
			stalled.proceed();
			Throwable failure = stale.handle((done, ex) -> ex).get(30, TimeUnit.SECONDS);
			if (service == FencedStock.class) {
				assertThat(failure).hasRootCauseInstanceOf(StaleFencingTokenException.class);
			}
			stock[0] = jdbc.sql("SELECT stock FROM product WHERE id = 7").query(Integer.class).single();
		}));
		return stock[0];
	}

	private ApplicationContextRunner instance(Class<? extends Reservations> service, SlowCall slowCall) {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
					JdbcClientAutoConfiguration.class, TransactionAutoConfiguration.class,
					DistlockFencingAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + this.database)
			.withBean(SlowCall.class, () -> slowCall)
			.withBean(service);
	}

	interface Reservations {

		void reserve(long productId, int quantity);

	}

	static class FencedStock implements Reservations {

		private final JdbcClient jdbc;

		private final JdbcFencing fencing;

		private final SlowCall slowCall;

		FencedStock(JdbcClient jdbc, JdbcFencing fencing, SlowCall slowCall) {
			this.jdbc = jdbc;
			this.fencing = fencing;
			this.slowCall = slowCall;
		}

		// tag::fenced[]
		@DistributedLock(key = "'stock:' + #productId", waitTime = "10s")
		@Transactional
		@Override
		public void reserve(long productId, int quantity) {
			this.slowCall.run(); // a GC pause, a slow call: the lock may be lost meanwhile
			// First in the transaction, before the read: refused (and the transaction rolled back)
			// if a newer holder of the lock got here first; a newer one waits for this commit.
			this.fencing.advance("product:" + productId);
			int stock = this.jdbc.sql("SELECT stock FROM product WHERE id = ?").param(productId)
				.query(Integer.class).single();
			this.jdbc.sql("UPDATE product SET stock = ? WHERE id = ?").params(stock - quantity, productId).update();
		}
		// end::fenced[]

	}

	static class UnfencedStock implements Reservations {

		private final JdbcClient jdbc;

		private final SlowCall slowCall;

		UnfencedStock(JdbcClient jdbc, SlowCall slowCall) {
			this.jdbc = jdbc;
			this.slowCall = slowCall;
		}

		@DistributedLock(key = "'stock:' + #productId", waitTime = "10s")
		@Transactional
		@Override
		public void reserve(long productId, int quantity) {
			int stock = this.jdbc.sql("SELECT stock FROM product WHERE id = ?").param(productId)
				.query(Integer.class).single();
			this.slowCall.run();
			this.jdbc.sql("UPDATE product SET stock = ? WHERE id = ?").params(stock - quantity, productId).update();
		}

	}

	/**
	 * A call that stalls until the test lets it go on, and says when it has started.
	 */
	static final class SlowCall {

		final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch released = new CountDownLatch(1);

		SlowCall proceed() {
			this.released.countDown();
			return this;
		}

		void run() {
			this.entered.countDown();
			awaitQuietly(this.released);
		}

	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(20, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

package io.distlock.sample.inventory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import io.distlock.sample.inventory.product.Product;
import io.distlock.sample.inventory.reservation.Reservation;
import io.distlock.sample.inventory.reservation.Reservations;
import io.distlock.sample.inventory.reservation.Strategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flash sale of issue 29 as a user would run it: two processes of the sample application
 * ({@code java -cp ... InventoryApplication}, each in its own JVM) on one PostgreSQL and one
 * Redis, buyers sent to them in turn over HTTP, and one reservation in 10 of each process pausing
 * 200 ms after its lock's key was deleted from Redis ({@code inventory.pauses.every}): a holder
 * that outlives its lock, while a buyer of either process takes the lock and sells. The fenced
 * strategy, the lock and distlock's {@code JdbcFencing} with no {@code stock >=} guard in the
 * SQL, never oversells, and its stale holders are refused by the database; the lock alone
 * oversells under the same faults, which is the negative control.
 */
@Tag("fault")
@Timeout(300)
class TwoProcessFencedSaleIntegrationTests {

	private static final int STOCK = 50;

	private static final int BUYERS = 200;

	private static InventoryProcess first;

	private static InventoryProcess second;

	@BeforeAll
	static void startTwoProcesses() throws Exception {
		String[] arguments = InventoryServers.arguments("inventory.think-time=2ms", "inventory.pauses.every=10",
				"inventory.pauses.time=200ms", "distlock.retry-interval=50ms");
		first = InventoryProcess.start(Path.of("target", "two-process-sale-1.log"), arguments);
		second = InventoryProcess.start(Path.of("target", "two-process-sale-2.log"), arguments);
	}

	@AfterAll
	static void stop() throws Exception {
		if (second != null) {
			second.stop();
		}
		if (first != null) {
			first.stop();
		}
	}

	@Test
	void lockAndFencingNeverOversellWhileHoldersOutliveTheirLocks() throws Exception {
		Sale sale = sell(Strategy.FENCED);
		assertThat(sale.lowestStock).as("lowest stock seen while selling").isGreaterThanOrEqualTo(0);
		assertThat(sale.sold).as("units sold").isEqualTo(STOCK);
		assertThat(sale.finalStock).as("final stock").isZero();
		// Every order in the database was answered as accepted. A paused holder whom no newer holder
		// fenced ahead of (the last buyers) passes the fence; the lock's transaction guard then rolls
		// it back at the commit and its buyer gets an error: a refusal too, never a sale.
		assertThat(sale.accepted).as("buyers told their order was accepted (%d errors)", sale.errors)
			.isEqualTo(sale.sold);
		// The fence, not luck: stale holders came back and the database refused them.
		assertThat(sale.staleRejected).as("stale writes rejected").isPositive();
	}

	@Test
	void negativeControlTheLockAloneOversellsUnderTheSameFaults() throws Exception {
		Sale sale = sell(Strategy.LOCK_ONLY);
		assertThat(sale.sold).as("units sold, final stock %d", sale.finalStock).isGreaterThan(STOCK);
		assertThat(sale.finalStock + sale.sold).as("final stock + units sold").isNotEqualTo(STOCK);
	}

	private Sale sell(Strategy strategy) throws Exception {
		RestClient[] instances = { RestClient.create(first.url()), RestClient.create(second.url()) };
		Product product = instances[0].post()
			.uri("/api/products")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("name", "two-process sale " + strategy, "stock", STOCK))
			.retrieve()
			.body(Product.class);
		assertThat(product).isNotNull();
		long id = product.id();
		AtomicInteger accepted = new AtomicInteger();
		AtomicInteger staleRejected = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		AtomicInteger lowest = new AtomicInteger(STOCK);
		AtomicBoolean selling = new AtomicBoolean(true);
		Thread sampler = new Thread(() -> {
			while (selling.get()) {
				lowest.accumulateAndGet(stockOf(id), Math::min);
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService buyers = Executors.newFixedThreadPool(32);
		try {
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < BUYERS; i++) {
				RestClient instance = instances[i % 2];
				calls.add(buyers.submit(() -> {
					start.await();
					try {
						Reservation reservation = instance.post()
							.uri("/api/products/{id}/orders?strategy={strategy}", id, strategy)
							.retrieve()
							.body(Reservation.class);
						if (reservation != null && reservation.accepted()) {
							accepted.incrementAndGet();
						}
						else if (reservation != null && reservation.reason() != null
								&& reservation.reason().startsWith(Reservations.STALE_WRITE_REJECTED)) {
							staleRejected.incrementAndGet();
						}
					}
					catch (RestClientException ex) {
						// The lock alone: a holder that committed after its lock was lost is told so
						// at the release (LockLostException), after its write landed.
						errors.incrementAndGet();
					}
					return null;
				}));
			}
			sampler.start();
			start.countDown();
			for (Future<?> call : calls) {
				call.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			selling.set(false);
			sampler.join(5_000);
			buyers.shutdownNow();
		}
		int finalStock = stockOf(id);
		lowest.accumulateAndGet(finalStock, Math::min);
		return new Sale(soldOf(id), finalStock, lowest.get(), accepted.get(), staleRejected.get(), errors.get());
	}

	private static int stockOf(long productId) {
		return query("select stock from product where id = ?", productId);
	}

	private static int soldOf(long productId) {
		return query("select coalesce(sum(quantity), 0) from purchase_order where product_id = ?", productId);
	}

	private static int query(String sql, long productId) {
		try (Connection connection = InventoryServers.postgres().getPostgresDatabase().getConnection();
				PreparedStatement query = connection.prepareStatement(sql)) {
			query.setLong(1, productId);
			try (ResultSet row = query.executeQuery()) {
				row.next();
				return row.getInt(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private record Sale(int sold, int finalStock, int lowestStock, int accepted, int staleRejected, int errors) {
	}

}

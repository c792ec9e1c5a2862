package io.distlock.sample.inventory;

import java.util.ArrayList;
import java.util.List;

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

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;
import io.distlock.sample.inventory.reservation.Reservation;
import io.distlock.sample.inventory.reservation.Reservations;
import io.distlock.sample.inventory.reservation.Strategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T32 of the reliability catalogue: while a nemesis keeps making the stock locks expire early (a
 * lost lock, as after a pause, a clock jump or a failover), the lock with the database guard
 * never oversells; the lock without the guard does, which is the negative control that shows
 * the checks can see it.
 */
@Tag("fault")
@Timeout(300)
class OversellFaultIntegrationTests {

	private static final int STOCK = 100;

	private static final int ORDERS = 300;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void startTwoInstances() {
		first = InventoryServers.start(false, "inventory.think-time=2ms");
		second = InventoryServers.start(false, "inventory.think-time=2ms");
	}

	@AfterAll
	static void stop() {
		second.close();
		first.close();
	}

	@Test
	void theGuardedLockNeverOversellsWhileLocksAreLost() throws Exception {
		Sale sale = sellUnderFaults(Strategy.LOCK);
		assertThat(sale.lowestStock).isGreaterThanOrEqualTo(0);
		assertThat(sale.finalStock + sale.sold).isEqualTo(STOCK);
		assertThat(sale.sold).isEqualTo(sale.orders).isLessThanOrEqualTo(STOCK);
		// A loss between the pre-commit confirmation and the release (the commit and the release
		// round trip, against a nemesis that strikes every 10 ms) is reported to its caller after
		// the commit: the one gap between orders and answers. Runs measure 7 to 14 of 100; without
		// the confirmation the whole transaction would be in that window, so bound it at a quarter.
		int reportedAfterCommit = sale.orders - sale.accepted;
		assertThat(reportedAfterCommit).isBetween(0, sale.orders / 4);
		System.out.println("FAULT-REPORT | T32 | locks expire every 10 ms during a sale of " + STOCK
				+ " to " + ORDERS + " buyers on 2 instances | the guard refuses what the lost lock let through; "
				+ "a loss seen before commit rolls back | sold " + sale.sold + ", oversold 0, stock never below 0, "
				+ sale.nemesisExpiries + " lock expiries; " + reportedAfterCommit
				+ " committed orders whose caller was told of a loss after the commit |");
	}

	@Test
	void negativeControlTheLockWithoutTheGuardOversells() throws Exception {
		Sale sale = sellUnderFaults(Strategy.LOCK_ONLY);
		assertThat(sale.sold > STOCK || sale.finalStock + sale.sold != STOCK)
			.as("an oversell or a lost update: sold %d, final stock %d", sale.sold, sale.finalStock)
			.isTrue();
		System.out.println("FAULT-REPORT | T32 control | the same faults, lock without guard | oversells | sold "
				+ sale.sold + " of " + STOCK + ", final stock " + sale.finalStock + " |");
	}

	private Sale sellUnderFaults(Strategy strategy) throws Exception {
		ProductRepository products = first.getBean(ProductRepository.class);
		long productId = products.create("t32 " + strategy, STOCK);
		String lockKey = "distlock:{stock:" + productId + "}";
		Reservations[] instances = { first.getBean(Reservations.class), second.getBean(Reservations.class) };
		AtomicBoolean selling = new AtomicBoolean(true);
		AtomicInteger lowest = new AtomicInteger(STOCK);
		AtomicInteger expiries = new AtomicInteger();
		AtomicInteger accepted = new AtomicInteger();
		Thread sampler = new Thread(() -> {
			while (selling.get()) {
				lowest.accumulateAndGet(products.stock(productId), Math::min);
			}
		});
		Thread nemesis = new Thread(() -> {
			while (selling.get()) {
				// The holder's key vanishes under it: its lock is lost, and another buyer gets in.
				if ("1".equals(InventoryServers.redis().command("PEXPIRE", lockKey, "1").substring(1))) {
					expiries.incrementAndGet();
				}
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> buyers = new ArrayList<>();
			for (int i = 0; i < ORDERS; i++) {
				Reservations instance = instances[i % 2];
				buyers.add(executor.submit(() -> {
					start.await();
					try {
						Reservation reservation = instance.reserve(strategy, productId, 1);
						if (reservation.accepted()) {
							accepted.incrementAndGet();
						}
					}
					catch (RuntimeException ex) {
						// A lost lock makes some commits fail (rolled back): not an order.
					}
					return null;
				}));
			}
			sampler.start();
			nemesis.start();
			start.countDown();
			for (Future<?> buyer : buyers) {
				buyer.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			selling.set(false);
			sampler.join(5_000);
			nemesis.join(5_000);
			executor.shutdownNow();
		}
		OrderRepository orders = first.getBean(OrderRepository.class);
		lowest.accumulateAndGet(products.stock(productId), Math::min);
		return new Sale(orders.soldQuantity(productId), orders.count(productId), accepted.get(),
				products.stock(productId), lowest.get(), expiries.get());
	}

	private record Sale(int sold, int orders, int accepted, int finalStock, int lowestStock, int nemesisExpiries) {
	}


}

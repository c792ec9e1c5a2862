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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;
import io.distlock.sample.inventory.reservation.Reservation;
import io.distlock.sample.inventory.reservation.Reservations;
import io.distlock.sample.inventory.reservation.Strategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 200 buyers on two application instances (one PostgreSQL, one Redis) compete for 50 units:
 * every safe strategy sells exactly 50, leaves stock 0 and never shows negative stock while the
 * sale runs; the unguarded read-check-write oversells, which proves the checks can see it.
 */
@Timeout(180)
class FlashSaleIntegrationTests {

	private static final int BUYERS = 200;

	private static final int STOCK = 50;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void startTwoInstances() {
		first = InventoryServers.start(false, "inventory.think-time=1ms");
		second = InventoryServers.start(false, "inventory.think-time=1ms");
	}

	@AfterAll
	static void stopInstances() {
		second.close();
		first.close();
	}

	@ParameterizedTest
	@EnumSource(names = { "LOCK", "GUARD", "OPTIMISTIC", "FENCED" })
	void neverOversellsAcrossTwoInstances(Strategy strategy) throws Exception {
		Sale sale = sell(strategy);
		assertThat(sale.sold).as("units sold").isEqualTo(STOCK);
		assertThat(sale.orders).as("orders").isEqualTo(STOCK);
		assertThat(sale.accepted).as("accepted reservations").isEqualTo(STOCK);
		assertThat(sale.finalStock).as("final stock").isZero();
		assertThat(sale.lowestStockSeen).as("lowest stock seen while selling").isGreaterThanOrEqualTo(0);
		assertThat(sale.errors).as("failed calls").isZero();
	}

	@Test
	void negativeControlUnguardedReadCheckWriteOversells() throws Exception {
		Sale sale = sell(Strategy.UNGUARDED);
		assertThat(sale.sold).as("units sold").isGreaterThan(STOCK);
		assertThat(sale.finalStock + sale.sold).as("stock + sold").isNotEqualTo(STOCK);
	}

	private Sale sell(Strategy strategy) throws Exception {
		ProductRepository products = first.getBean(ProductRepository.class);
		long productId = products.create("flash " + strategy, STOCK);
		Reservations[] instances = { first.getBean(Reservations.class), second.getBean(Reservations.class) };
		AtomicBoolean selling = new AtomicBoolean(true);
		AtomicInteger lowest = new AtomicInteger(STOCK);
		Thread sampler = new Thread(() -> {
			while (selling.get()) {
				lowest.accumulateAndGet(products.stock(productId), Math::min);
			}
		});
		AtomicInteger accepted = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(64);
		try {
			List<Future<?>> buyers = new ArrayList<>();
			for (int i = 0; i < BUYERS; i++) {
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
						errors.incrementAndGet();
					}
					return null;
				}));
			}
			sampler.start();
			start.countDown();
			for (Future<?> buyer : buyers) {
				buyer.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			selling.set(false);
			sampler.join(5_000);
			executor.shutdownNow();
		}
		OrderRepository orders = first.getBean(OrderRepository.class);
		lowest.accumulateAndGet(products.stock(productId), Math::min);
		return new Sale(orders.soldQuantity(productId), orders.count(productId), accepted.get(), errors.get(),
				products.stock(productId), lowest.get());
	}

	private record Sale(int sold, int orders, int accepted, int errors, int finalStock, int lowestStockSeen) {
	}

}

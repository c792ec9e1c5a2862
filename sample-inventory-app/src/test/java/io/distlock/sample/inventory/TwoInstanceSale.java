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

import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;
import io.distlock.sample.inventory.reservation.Reservation;
import io.distlock.sample.inventory.reservation.Reservations;
import io.distlock.sample.inventory.reservation.Strategy;

/**
 * A flash sale on two application instances for the tests: buyers alternate between the
 * instances and all start at once, a sampler watches the stock for a negative value while they
 * buy, and an optional nemesis strikes every 10 ms until the sale ends.
 *
 * @param first the first instance (its database is read for the results)
 * @param second the second instance
 */
record TwoInstanceSale(ConfigurableApplicationContext first, ConfigurableApplicationContext second) {

	/** The reason {@code LockedReservation} gives when the guard, not its own check, refused. */
	static final String GUARD_REFUSAL = "refused by the database guard";

	/** A fault injected during the sale, given the product's lock key. */
	interface Nemesis {

		void strike(String lockKey);

	}

	Result sell(Strategy strategy, int stock, int buyers, int threads) throws Exception {
		return sell(strategy, stock, buyers, threads, (lockKey) -> {
		});
	}

	Result sell(Strategy strategy, int stock, int buyers, int threads, Nemesis nemesis) throws Exception {
		ProductRepository products = this.first.getBean(ProductRepository.class);
		long productId = products.create("sale " + strategy, stock);
		String lockKey = "distlock:{stock:" + productId + "}";
		Reservations[] instances = { this.first.getBean(Reservations.class), this.second.getBean(Reservations.class) };
		AtomicBoolean selling = new AtomicBoolean(true);
		AtomicInteger lowest = new AtomicInteger(stock);
		AtomicInteger accepted = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		AtomicInteger guardRefusals = new AtomicInteger();
		Thread sampler = new Thread(() -> {
			while (selling.get()) {
				lowest.accumulateAndGet(products.stock(productId), Math::min);
			}
		});
		Thread faults = new Thread(() -> {
			while (selling.get()) {
				nemesis.strike(lockKey);
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < buyers; i++) {
				Reservations instance = instances[i % 2];
				calls.add(executor.submit(() -> {
					start.await();
					try {
						Reservation reservation = instance.reserve(strategy, productId, 1);
						if (reservation.accepted()) {
							accepted.incrementAndGet();
						}
						else if (GUARD_REFUSAL.equals(reservation.reason())) {
							guardRefusals.incrementAndGet();
						}
					}
					catch (RuntimeException ex) {
						errors.incrementAndGet();
					}
					return null;
				}));
			}
			sampler.start();
			faults.start();
			start.countDown();
			for (Future<?> call : calls) {
				call.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			selling.set(false);
			sampler.join(5_000);
			faults.join(5_000);
			executor.shutdownNow();
		}
		OrderRepository orders = this.first.getBean(OrderRepository.class);
		lowest.accumulateAndGet(products.stock(productId), Math::min);
		return new Result(orders.soldQuantity(productId), orders.count(productId), accepted.get(), errors.get(),
				products.stock(productId), lowest.get(), guardRefusals.get());
	}

	/**
	 * What a sale left behind.
	 *
	 * @param sold units in orders
	 * @param orders orders committed
	 * @param accepted calls answered with an accepted reservation
	 * @param errors calls that threw
	 * @param finalStock the stock after the sale
	 * @param lowestStockSeen the lowest stock the sampler saw
	 * @param guardRefusals reservations the database guard refused after the strategy's own check
	 * passed (with the lock: buyers the lock failed to keep apart)
	 */
	record Result(int sold, int orders, int accepted, int errors, int finalStock, int lowestStockSeen,
			int guardRefusals) {
	}

}

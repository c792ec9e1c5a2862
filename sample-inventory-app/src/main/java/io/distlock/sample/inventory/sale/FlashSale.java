package io.distlock.sample.inventory.sale;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;
import io.distlock.sample.inventory.reservation.HolderPauses;
import io.distlock.sample.inventory.reservation.Reservation;
import io.distlock.sample.inventory.reservation.Reservations;
import io.distlock.sample.inventory.reservation.Strategy;

/**
 * Runs a flash sale: a new product with little stock, many buyers released at once, each buying
 * one unit with the chosen strategy; then reports what was sold, whether anything was oversold,
 * and what it cost.
 */
@Service
public class FlashSale {

	private static final Log logger = LogFactory.getLog(FlashSale.class);

	private static final Duration SAMPLE_INTERVAL = Duration.ofMillis(10);

	private final Reservations reservations;

	private final ProductRepository products;

	private final OrderRepository orders;

	private final ObjectProvider<MeterRegistry> meters;

	private final SaleTimeline timeline;

	private final HolderPauses pauses;

	public FlashSale(Reservations reservations, ProductRepository products, OrderRepository orders,
			ObjectProvider<MeterRegistry> meters, SaleTimeline timeline, HolderPauses pauses) {
		this.reservations = reservations;
		this.products = products;
		this.orders = orders;
		this.meters = meters;
		this.timeline = timeline;
		this.pauses = pauses;
	}

	/**
	 * Run one sale.
	 * @param strategy how buyers reserve
	 * @param buyers how many buyers
	 * @param stock the units on sale
	 * @return the report
	 */
	public FlashSaleReport run(Strategy strategy, int buyers, int stock) throws InterruptedException {
		return run(strategy, buyers, stock, false);
	}

	/**
	 * Run one sale, optionally with holders paused past their lease ({@link HolderPauses}: one
	 * buyer in {@value HolderPauses#SALE_EVERY} pauses and loses its lock).
	 * @param strategy how buyers reserve
	 * @param buyers how many buyers
	 * @param stock the units on sale
	 * @param loseLocks whether holders pause and lose their lock during the sale
	 * @return the report
	 */
	public FlashSaleReport run(Strategy strategy, int buyers, int stock, boolean loseLocks)
			throws InterruptedException {
		long productId = this.products.create("Flash sale " + strategy + " " + System.currentTimeMillis(), stock);
		long grantsBefore = lockCount(strategy, "acquired");
		long timeoutsBefore = lockCount(strategy, "timeout");
		double staleBefore = fencingRejections(strategy);
		HolderPauses.Session pausing = null;
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService executor = Buyers.executor(buyers);
		List<Future<Purchase>> purchases = new ArrayList<>(buyers);
		try {
			for (int i = 0; i < buyers; i++) {
				purchases.add(executor.submit(() -> {
					start.await();
					return buy(strategy, productId);
				}));
			}
			this.timeline.start(strategy, stock);
			long startNanos = System.nanoTime();
			Thread sampler = sampler(strategy, productId, stock, startNanos);
			if (loseLocks) {
				pausing = this.pauses.pauseEvery(HolderPauses.SALE_EVERY);
			}
			start.countDown();
			long[] latencies = new long[buyers];
			int rejected = 0;
			int errors = 0;
			for (int i = 0; i < buyers; i++) {
				Purchase purchase = get(purchases.get(i));
				latencies[i] = purchase.nanos();
				if (purchase.failed()) {
					errors++;
				}
				else if (!purchase.accepted()) {
					rejected++;
				}
			}
			long durationNanos = System.nanoTime() - startNanos;
			int lockLosses = stopPauses(pausing);
			pausing = null;
			sampler.interrupt();
			sampler.join(TimeUnit.SECONDS.toMillis(5));
			int sold = this.orders.soldQuantity(productId);
			this.timeline.sample(strategy, TimeUnit.NANOSECONDS.toMillis(durationNanos), stock - sold);
			int finalStock = this.products.stock(productId);
			Arrays.sort(latencies);
			FlashSaleReport report = new FlashSaleReport(strategy, productId, buyers, stock, sold, finalStock,
					Math.max(0, sold - stock), finalStock + sold == stock, rejected, errors,
					TimeUnit.NANOSECONDS.toMillis(durationNanos), buyers / (durationNanos / 1e9),
					percentileMillis(latencies, 0.50), percentileMillis(latencies, 0.90),
					percentileMillis(latencies, 0.99), percentileMillis(latencies, 1.0),
					lockCount(strategy, "acquired") - grantsBefore, lockCount(strategy, "timeout") - timeoutsBefore,
					lockLosses, (long) (fencingRejections(strategy) - staleBefore));
			logger.info("Flash sale " + report.summary());
			return report;
		}
		finally {
			stopPauses(pausing);
			executor.shutdownNow();
		}
	}

	private static int stopPauses(HolderPauses.Session pausing) {
		if (pausing == null) {
			return 0;
		}
		pausing.close();
		return pausing.locksLost();
	}

	/**
	 * Start a thread that records the units left every few milliseconds until interrupted, for
	 * the page's chart (one query per sample, on the pool the buyers share).
	 */
	private Thread sampler(Strategy strategy, long productId, int stock, long startNanos) {
		Thread sampler = new Thread(() -> {
			while (!Thread.currentThread().isInterrupted()) {
				long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
				this.timeline.sample(strategy, elapsedMillis, stock - this.orders.soldQuantity(productId));
				try {
					Thread.sleep(SAMPLE_INTERVAL.toMillis());
				}
				catch (InterruptedException ex) {
					// The sale is over: the caller records the last sample.
					return;
				}
			}
		}, "flash-sale-sampler");
		sampler.setDaemon(true);
		sampler.start();
		return sampler;
	}

	private Purchase buy(Strategy strategy, long productId) {
		long startNanos = System.nanoTime();
		try {
			Reservation reservation = this.reservations.reserve(strategy, productId, 1);
			return new Purchase(reservation.accepted(), false, System.nanoTime() - startNanos);
		}
		catch (RuntimeException ex) {
			logger.warn("A buyer's purchase failed: " + ex.getMessage());
			return new Purchase(false, true, System.nanoTime() - startNanos);
		}
	}

	private static Purchase get(Future<Purchase> purchase) throws InterruptedException {
		try {
			return purchase.get(2, TimeUnit.MINUTES);
		}
		catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
			return new Purchase(false, true, 0);
		}
	}

	private long lockCount(Strategy strategy, String outcome) {
		MeterRegistry registry = this.meters.getIfAvailable();
		if (registry == null || strategy.lockName() == null) {
			return 0;
		}
		Timer timer = registry.find("distlock.acquire").tag("lock.name", strategy.lockName()).tag("outcome", outcome).timer();
		return (timer != null) ? timer.count() : 0;
	}

	/** Stale writes the database refused, from distlock's {@code distlock.fencing.rejected} counter. */
	private double fencingRejections(Strategy strategy) {
		MeterRegistry registry = this.meters.getIfAvailable();
		if (registry == null || strategy.lockName() == null) {
			return 0;
		}
		Counter counter = registry.find("distlock.fencing.rejected").tag("lock.name", strategy.lockName()).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static double percentileMillis(long[] sortedNanos, double percentile) {
		if (sortedNanos.length == 0) {
			return 0;
		}
		int index = (int) Math.ceil(percentile * sortedNanos.length) - 1;
		return sortedNanos[Math.max(0, index)] / 1e6;
	}

	private record Purchase(boolean accepted, boolean failed, long nanos) {
	}

}

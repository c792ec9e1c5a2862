package io.distlock.sample.inventory.reservation;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.Product;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * Optimistic versions: read the row and its version, write only if the version is unchanged,
 * and retry a bounded number of times after a short random pause when someone else won.
 */
@Component
public class OptimisticReservation extends StockReservation {

	private final TransactionTemplate transactions;

	private final int maxAttempts;

	private final AtomicLong conflicts = new AtomicLong();

	public OptimisticReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime,
			TransactionTemplate transactions, @Value("${inventory.optimistic.max-attempts:100}") int maxAttempts) {
		super(Strategy.OPTIMISTIC, products, orders, thinkTime);
		this.transactions = transactions;
		this.maxAttempts = maxAttempts;
	}

	@Override
	public Reservation reserve(long productId, int quantity) {
		for (int attempt = 1; attempt <= this.maxAttempts; attempt++) {
			Product product = this.products.find(productId).orElseThrow();
			if (product.stock() < quantity) {
				return Reservation.rejected("out of stock");
			}
			this.thinkTime.pause();
			Long orderId = this.transactions.execute((status) -> (this.products.decrementIfVersion(productId, quantity,
					product.version()) == 1) ? this.orders.insert(productId, quantity, strategy().name()) : null);
			if (orderId != null) {
				return Reservation.accepted(orderId);
			}
			this.conflicts.incrementAndGet();
			backOff(attempt);
		}
		return Reservation.rejected("gave up after " + this.maxAttempts + " version conflicts");
	}

	/**
	 * Return how many writes lost to a concurrent one and were retried.
	 * @return the number of version conflicts
	 */
	public long conflicts() {
		return this.conflicts.get();
	}

	private static void backOff(int attempt) {
		try {
			Thread.sleep(ThreadLocalRandom.current().nextInt(1, 2 + Math.min(attempt, 8)));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

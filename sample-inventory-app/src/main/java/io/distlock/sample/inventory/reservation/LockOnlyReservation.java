package io.distlock.sample.inventory.reservation;

import org.springframework.stereotype.Component;

import io.distlock.annotation.DistributedLock;
import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * The lock alone: read, check and write the computed stock under {@code @DistributedLock},
 * without a database guard and without a transaction (so no pre-commit check either). Correct
 * only while the lock is never lost; the fault suite shows it overselling when leases expire
 * early (a pause, a clock jump, a failover). Kept to show why the other defences stay.
 */
@Component
public class LockOnlyReservation implements ReservationStrategy {

	private final ProductRepository products;

	private final OrderRepository orders;

	private final ThinkTime thinkTime;

	public LockOnlyReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		this.products = products;
		this.orders = orders;
		this.thinkTime = thinkTime;
	}

	@Override
	public Strategy strategy() {
		return Strategy.LOCK_ONLY;
	}

	@Override
	@DistributedLock(key = "'stock:' + #productId")
	public Reservation reserve(long productId, int quantity) {
		int stock = this.products.stock(productId);
		if (stock < quantity) {
			return Reservation.rejected("out of stock");
		}
		this.thinkTime.pause();
		this.products.writeStock(productId, stock - quantity);
		return Reservation.accepted(this.orders.insert(productId, quantity, strategy().name()));
	}

}

package io.distlock.sample.inventory.reservation;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.annotation.DistributedLock;
import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * The lock serialises the read-check-write; the database guard still refuses an oversell if the
 * lock was ever lost (a pause longer than the lease, a Redis failover) or a writer bypassed it.
 */
@Component
public class LockedReservation extends StockReservation {

	public LockedReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		super(Strategy.LOCK, products, orders, thinkTime);
	}

	@Override
	@DistributedLock(key = "'stock:' + #productId")
	@Transactional
	public Reservation reserve(long productId, int quantity) {
		if (this.products.stock(productId) < quantity) {
			return Reservation.rejected("out of stock");
		}
		this.thinkTime.pause();
		if (this.products.decrementGuarded(productId, quantity) == 0) {
			return Reservation.rejected("refused by the database guard");
		}
		return Reservation.accepted(this.orders.insert(productId, quantity, strategy().name()));
	}

}

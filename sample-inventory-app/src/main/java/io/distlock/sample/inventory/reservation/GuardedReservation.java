package io.distlock.sample.inventory.reservation;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * The database guard alone: one conditional update decides, atomically, whether stock is left.
 */
@Component
public class GuardedReservation extends StockReservation {

	public GuardedReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		super(Strategy.GUARD, products, orders, thinkTime);
	}

	@Override
	@Transactional
	public Reservation reserve(long productId, int quantity) {
		this.thinkTime.pause();
		if (this.products.decrementGuarded(productId, quantity) == 0) {
			return Reservation.rejected("out of stock");
		}
		return Reservation.accepted(this.orders.insert(productId, quantity, strategy().name()));
	}

}

package io.distlock.sample.inventory.reservation;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * The negative control: read the stock, check it, write the computed value back, with no lock
 * and no guard. Two buyers that read the same stock both succeed: this oversells, which proves
 * that the flash-sale checks can see an oversell.
 */
@Component
public class UnguardedReservation implements ReservationStrategy {

	private final ProductRepository products;

	private final OrderRepository orders;

	private final ThinkTime thinkTime;

	public UnguardedReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		this.products = products;
		this.orders = orders;
		this.thinkTime = thinkTime;
	}

	@Override
	public Strategy strategy() {
		return Strategy.UNGUARDED;
	}

	@Override
	@Transactional
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

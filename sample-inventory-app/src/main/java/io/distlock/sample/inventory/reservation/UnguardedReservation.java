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
public class UnguardedReservation extends StockReservation {

	public UnguardedReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		super(Strategy.UNGUARDED, products, orders, thinkTime);
	}

	@Override
	@Transactional
	public Reservation reserve(long productId, int quantity) {
		return readCheckWrite(productId, quantity);
	}

}

package io.distlock.sample.inventory.reservation;

import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * What every strategy works with: the product and order tables and the business work between
 * reading the stock and writing it. A strategy differs from the others only in its
 * {@code reserve} method and the annotations on it, so that they read side by side.
 */
abstract class StockReservation implements ReservationStrategy {

	protected final ProductRepository products;

	protected final OrderRepository orders;

	protected final ThinkTime thinkTime;

	private final Strategy strategy;

	StockReservation(Strategy strategy, ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		this.strategy = strategy;
		this.products = products;
		this.orders = orders;
		this.thinkTime = thinkTime;
	}

	// Not final: a strategy with distlock's or Spring's annotations is called through a
	// class-based proxy, whose own fields are never set.
	@Override
	public Strategy strategy() {
		return this.strategy;
	}

	/**
	 * Read the stock, check it, and write the computed value back, with nothing around it: two
	 * buyers that read the same stock both succeed unless whatever the caller holds keeps them
	 * apart.
	 * @param productId the product
	 * @param quantity the units
	 * @return the reservation
	 */
	protected Reservation readCheckWrite(long productId, int quantity) {
		int stock = this.products.stock(productId);
		if (stock < quantity) {
			return Reservation.rejected("out of stock");
		}
		this.thinkTime.pause();
		this.products.writeStock(productId, stock - quantity);
		return Reservation.accepted(this.orders.insert(productId, quantity, strategy().name()));
	}

}

package io.distlock.sample.inventory.reservation;

/**
 * One way to reserve stock.
 */
public interface ReservationStrategy {

	/**
	 * Return which strategy this is.
	 * @return the strategy
	 */
	Strategy strategy();

	/**
	 * Reserve units of a product and create an order, or refuse.
	 * @param productId the product
	 * @param quantity the units
	 * @return the reservation
	 */
	Reservation reserve(long productId, int quantity);

}

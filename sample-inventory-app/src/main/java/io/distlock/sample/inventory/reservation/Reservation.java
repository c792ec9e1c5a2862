package io.distlock.sample.inventory.reservation;

/**
 * The answer to one reservation.
 *
 * @param accepted whether stock was reserved and an order created
 * @param orderId the order's id when accepted
 * @param reason why it was refused
 */
public record Reservation(boolean accepted, Long orderId, String reason) {

	static Reservation accepted(long orderId) {
		return new Reservation(true, orderId, null);
	}

	static Reservation rejected(String reason) {
		return new Reservation(false, null, reason);
	}

}

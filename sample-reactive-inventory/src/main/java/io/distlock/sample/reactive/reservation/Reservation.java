package io.distlock.sample.reactive.reservation;

import org.jspecify.annotations.Nullable;

/**
 * A reservation that was accepted.
 *
 * @param orderId the order's id
 * @param productId the product
 * @param quantity the units reserved
 * @param strategy how it was reserved
 * @param fencingToken the lock's fencing token written with it, or {@code null} without a lock
 */
public record Reservation(long orderId, long productId, int quantity, Strategy strategy,
		@Nullable Long fencingToken) {
}

package io.distlock.sample.inventory.reservation;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * The lock plus a fencing token on the row. The holder first claims the row with its token
 * ({@code last_fence < :token}), then reads, then writes only while its token is still the
 * row's ({@code last_fence = :token}). A holder whose lease expired during a pause, and whose
 * successor has claimed the row, can no longer write: the only defence that does not depend on
 * timing. Claiming before reading matters: a successor that read first could otherwise act on
 * a value the stale holder changed after.
 */
@Component
public class FencedReservation implements ReservationStrategy {

	private final ProductRepository products;

	private final OrderRepository orders;

	private final ThinkTime thinkTime;

	public FencedReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		this.products = products;
		this.orders = orders;
		this.thinkTime = thinkTime;
	}

	@Override
	public Strategy strategy() {
		return Strategy.FENCED;
	}

	@Override
	@DistributedLock(key = "'stock:' + #productId")
	@Transactional
	public Reservation reserve(long productId, int quantity) {
		long token = LockContext.current().fencingToken();
		if (this.products.claimFence(productId, token) == 0) {
			return Reservation.rejected("stale fencing token " + token);
		}
		int stock = this.products.stock(productId);
		if (stock < quantity) {
			return Reservation.rejected("out of stock");
		}
		this.thinkTime.pause();
		if (this.products.writeStockIfFenced(productId, stock - quantity, token) == 0) {
			return Reservation.rejected("fenced out by a newer holder");
		}
		return Reservation.accepted(this.orders.insert(productId, quantity, strategy().name()));
	}

}

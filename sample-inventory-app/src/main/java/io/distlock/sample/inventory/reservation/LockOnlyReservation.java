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
public class LockOnlyReservation extends StockReservation {

	public LockOnlyReservation(ProductRepository products, OrderRepository orders, ThinkTime thinkTime) {
		super(Strategy.LOCK_ONLY, products, orders, thinkTime);
	}

	@Override
	@DistributedLock(key = "'stock:' + #productId")
	public Reservation reserve(long productId, int quantity) {
		return readCheckWrite(productId, quantity);
	}

}

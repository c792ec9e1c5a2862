package io.distlock.sample.inventory.reservation;

import java.util.Map;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.fencing.JdbcFencing;
import io.distlock.sample.inventory.order.OrderRepository;
import io.distlock.sample.inventory.product.Product;
import io.distlock.sample.inventory.product.ProductRepository;

/**
 * The lock plus fencing, with distlock's {@link JdbcFencing}: the holder first raises the fence
 * {@code stock:<id>} in the fence table to its fencing token, then reads, then writes the row
 * through its token column {@code last_fence}. A holder whose lease ran out during a pause, and
 * whose successor has fenced since, is refused at the fence with
 * {@link io.distlock.core.StaleFencingTokenException}: its transaction rolls back and nothing it
 * computed lands. The only defence that does not depend on timing. Fencing before the read
 * matters: the fence row stays locked until the commit, so a successor's fence (and its read)
 * waits for a holder that fenced first.
 */
@Component
public class FencedReservation extends StockReservation {

	private final JdbcFencing fencing;

	public FencedReservation(ProductRepository products, OrderRepository orders, JdbcFencing fencing,
			ThinkTime thinkTime) {
		super(Strategy.FENCED, products, orders, thinkTime);
		this.fencing = fencing;
	}

	// tag::reserve[]
	@Override
	@DistributedLock(key = "'stock:' + #productId")
	@Transactional
	public Reservation reserve(long productId, int quantity) {
		// The business work comes first here, where a pause past the lease strikes a holder that
		// has not fenced yet: a newer holder fences meanwhile, and this one is refused below. Once
		// fenced, the fence row keeps holders in token order, so no work between read and write
		// could let a stale one through.
		this.thinkTime.pause();
		this.fencing.advance("stock:" + productId);
		Product product = this.products.find(productId).orElseThrow();
		if (product.stock() < quantity) {
			return Reservation.rejected("out of stock");
		}
		// The row records which holder wrote it last (the page's "last fence").
		this.fencing.updateRow("product", "id", productId,
				Map.of("stock", product.stock() - quantity, "version", product.version() + 1), "last_fence",
				LockContext.current());
		return Reservation.accepted(this.orders.insert(productId, quantity, strategy().name()));
	}
	// end::reserve[]

}

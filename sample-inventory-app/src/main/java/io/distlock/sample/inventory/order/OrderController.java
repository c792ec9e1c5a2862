package io.distlock.sample.inventory.order;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Order totals over HTTP.
 */
@RestController
public class OrderController {

	private final OrderRepository orders;

	public OrderController(OrderRepository orders) {
		this.orders = orders;
	}

	@GetMapping("/api/orders/count")
	public Map<String, Integer> count() {
		return Map.of("orders", this.orders.countAll());
	}

}

package io.distlock.sample.inventory.reservation;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.distlock.sample.inventory.product.ProductRepository;

/**
 * Orders over HTTP: {@code POST /api/products/{id}/orders?strategy=LOCK&quantity=1}.
 */
@RestController
public class ReservationController {

	private final Reservations reservations;

	private final ProductRepository products;

	public ReservationController(Reservations reservations, ProductRepository products) {
		this.reservations = reservations;
		this.products = products;
	}

	@PostMapping("/api/products/{id}/orders")
	public Reservation order(@PathVariable long id, @RequestParam(defaultValue = "LOCK") Strategy strategy,
			@RequestParam(defaultValue = "1") int quantity) {
		if (quantity < 1) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "quantity must be at least 1");
		}
		// Each strategy would fail its own way on a missing row (a 500, "out of stock", "stale
		// fencing token"); products are never deleted, so one check before the strategy runs is enough.
		if (this.products.find(id).isEmpty()) {
			throw new ResponseStatusException(HttpStatus.NOT_FOUND, "No product " + id);
		}
		return this.reservations.reserve(strategy, id, quantity);
	}

}

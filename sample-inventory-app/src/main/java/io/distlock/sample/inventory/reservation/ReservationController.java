package io.distlock.sample.inventory.reservation;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Orders over HTTP: {@code POST /api/products/{id}/orders?strategy=LOCK&quantity=1}.
 */
@RestController
public class ReservationController {

	private final Reservations reservations;

	public ReservationController(Reservations reservations) {
		this.reservations = reservations;
	}

	@PostMapping("/api/products/{id}/orders")
	public Reservation order(@PathVariable long id, @RequestParam(defaultValue = "LOCK") Strategy strategy,
			@RequestParam(defaultValue = "1") int quantity) {
		if (quantity < 1) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "quantity must be at least 1");
		}
		return this.reservations.reserve(strategy, id, quantity);
	}

}

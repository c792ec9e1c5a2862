package io.distlock.sample.reactive.reservation;

import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /products/{id}/reservations?quantity=1&strategy=GUARDED}: {@code 201} with the
 * reservation, or {@code 409} when the product is sold out.
 */
@RestController
public class ReservationController {

	private final Reservations reservations;

	public ReservationController(Reservations reservations) {
		this.reservations = reservations;
	}

	@PostMapping("/products/{id}/reservations")
	public Mono<ResponseEntity<Reservation>> reserve(@PathVariable long id,
			@RequestParam(defaultValue = "1") int quantity, @RequestParam(defaultValue = "GUARDED") Strategy strategy) {
		Mono<Reservation> reservation = switch (strategy) {
			case GUARDED -> this.reservations.reserve(id, quantity);
			case LOCK_ONLY -> this.reservations.reserveLockOnly(id, quantity);
			case UNGUARDED -> this.reservations.reserveUnguarded(id, quantity);
		};
		return reservation.map((accepted) -> ResponseEntity.status(HttpStatus.CREATED).body(accepted))
			.defaultIfEmpty(ResponseEntity.status(HttpStatus.CONFLICT).build());
	}

}

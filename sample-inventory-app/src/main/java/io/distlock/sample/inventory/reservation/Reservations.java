package io.distlock.sample.inventory.reservation;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Service;

import io.distlock.core.StaleFencingTokenException;

/**
 * Finds the reservation strategy a request asks for.
 */
@Service
public class Reservations {

	/** How the answer of a buyer whose holder outlived its lease and was fenced out begins. */
	public static final String STALE_WRITE_REJECTED = "stale write rejected";

	private final Map<Strategy, ReservationStrategy> strategies = new EnumMap<>(Strategy.class);

	public Reservations(List<ReservationStrategy> strategies) {
		strategies.forEach((strategy) -> this.strategies.put(strategy.strategy(), strategy));
	}

	public Reservation reserve(Strategy strategy, long productId, int quantity) {
		try {
			return this.strategies.get(strategy).reserve(productId, quantity);
		}
		catch (StaleFencingTokenException ex) {
			// The holder's lease ran out and a newer holder fenced first: the database refused the
			// write and the transaction rolled back, so this buyer got nothing. An answer, not an error.
			return Reservation.rejected(STALE_WRITE_REJECTED + ": " + ex.getMessage());
		}
	}

}

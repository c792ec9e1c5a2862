package io.distlock.sample.inventory.reservation;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Service;

/**
 * Finds the reservation strategy a request asks for.
 */
@Service
public class Reservations {

	private final Map<Strategy, ReservationStrategy> strategies = new EnumMap<>(Strategy.class);

	public Reservations(List<ReservationStrategy> strategies) {
		strategies.forEach((strategy) -> this.strategies.put(strategy.strategy(), strategy));
	}

	public Reservation reserve(Strategy strategy, long productId, int quantity) {
		return this.strategies.get(strategy).reserve(productId, quantity);
	}

}

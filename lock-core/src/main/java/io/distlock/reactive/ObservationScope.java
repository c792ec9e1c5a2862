package io.distlock.reactive;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import reactor.util.context.ContextView;

/**
 * Opens the scope of the observation a Reactor {@code Context} carries (under Micrometer's
 * {@code ObservationThreadLocalAccessor.KEY}, where WebFlux and Reactor's context propagation put
 * the current one) around a call, so that what the call starts is its child. Loaded only when
 * Micrometer's Observation API is on the classpath.
 */
final class ObservationScope {

	/** Micrometer's {@code ObservationThreadLocalAccessor.KEY}. */
	static final String KEY = "micrometer.observation";

	private ObservationScope() {
	}

	static <T> T callWithin(ContextView context, Supplier<T> call) {
		Object current = context.getOrDefault(KEY, null);
		if (!(current instanceof Observation observation)) {
			return call.get();
		}
		try (Observation.Scope scope = observation.openScope()) {
			return call.get();
		}
	}

}

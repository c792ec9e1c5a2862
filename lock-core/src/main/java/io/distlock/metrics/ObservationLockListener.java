package io.distlock.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;

/**
 * Observes acquisitions and holds with the Micrometer Observation API, so that traces show
 * how long a request waited for a lock and how long it held it. Two observations, each with the
 * low-cardinality key {@code lock.name}:
 * <ul>
 * <li>{@code distlock.acquisition} (span "lock acquire"), from the start of an acquisition to
 * its outcome, with {@code outcome} acquired, timeout or error;</li>
 * <li>{@code distlock.holding} (span "lock hold"), from the grant to the release, with the
 * fencing token as a high-cardinality key; a loss is recorded as an error.</li>
 * </ul>
 * Evaluated keys are never added: they may carry personal data.
 */
public class ObservationLockListener implements LockListener {

	private static final String NAME = "lock.name";

	private final ObservationRegistry registry;

	/** Acquisitions run start to outcome on one thread. */
	private final ThreadLocal<Observation> acquisition = new ThreadLocal<>();

	private final Map<LockLease, Observation> holdings = new ConcurrentHashMap<>();

	/**
	 * Create a listener that observes through the given registry.
	 * @param registry the observation registry
	 */
	public ObservationLockListener(ObservationRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onAcquiring(String name, String key) {
		this.acquisition.set(Observation.createNotStarted("distlock.acquisition", this.registry)
			.contextualName("lock acquire")
			.lowCardinalityKeyValue(NAME, name)
			.start());
	}

	@Override
	public void onAcquired(LockLease lease, Duration waited) {
		finishAcquisition("acquired", null);
		this.holdings.put(lease, Observation.createNotStarted("distlock.holding", this.registry)
			.contextualName("lock hold")
			.lowCardinalityKeyValue(NAME, lease.name())
			.highCardinalityKeyValue("lock.fencing-token", Long.toString(lease.fencingToken()))
			.start());
	}

	@Override
	public void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
		finishAcquisition((failure != null) ? "error" : "timeout", failure);
	}

	@Override
	public void onLost(LockLease lease, LockLostException reason) {
		Observation holding = this.holdings.get(lease);
		if (holding != null) {
			holding.error(reason);
		}
	}

	@Override
	public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
		Observation holding = this.holdings.remove(lease);
		if (holding != null) {
			holding.lowCardinalityKeyValue("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT)).stop();
		}
	}

	private void finishAcquisition(String outcome, Throwable failure) {
		Observation observation = this.acquisition.get();
		this.acquisition.remove();
		if (observation == null) {
			return;
		}
		if (failure != null) {
			observation.error(failure);
		}
		observation.lowCardinalityKeyValue("outcome", outcome).stop();
	}

}

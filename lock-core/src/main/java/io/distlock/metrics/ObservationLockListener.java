package io.distlock.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;
import io.distlock.core.StaleFencingTokenException;

/**
 * Observes acquisitions and holds with the Micrometer Observation API, so that traces show
 * how long a request waited for a lock and how long it held it. Two observations, each with the
 * low-cardinality key {@code lock.name}:
 * <ul>
 * <li>{@code distlock.acquisition} (span "lock acquire"), from the start of an acquisition to
 * its outcome, with {@code outcome} acquired, timeout or error;</li>
 * <li>{@code distlock.holding} (span "lock hold"), from the grant to the release, with the
 * fencing token as a high-cardinality key; a loss is recorded as an error, and a write the
 * holder made after a newer holder's, refused where the data is written
 * ({@link #onFencingRejected}), as the event {@value #FENCING_REJECTED} (a span event in a trace,
 * a {@code distlock.holding.distlock.fencing.rejected} counter with the default meter
 * handler).</li>
 * </ul>
 * Evaluated keys are never added: they may carry personal data.
 * <p>
 * Both observations are children of the observation in scope where the acquisition was asked
 * for, also when the grant arrives on another thread ({@link #onAsyncAcquiring}): a blocking
 * acquisition's thread, or the thread that calls {@code acquireAsync} (for a reactive hold, the
 * subscribing thread, which sees the observation of the Reactor {@code Context} when Reactor's
 * automatic context propagation is on, as Spring Boot's
 * {@code spring.reactor.context-propagation=auto} turns it).
 */
public class ObservationLockListener implements LockListener {

	private static final String NAME = "lock.name";

	/** The name of the event a refused fenced write adds to the stale holder's hold. */
	public static final String FENCING_REJECTED = "distlock.fencing.rejected";

	private static final Observation.Event FENCING_REJECTED_EVENT = Observation.Event.of(FENCING_REJECTED,
			"fencing token rejected");

	private final ObservationRegistry registry;

	/** Blocking acquisitions run start to outcome on one thread. */
	private final ThreadLocal<Observation> acquisition = new ThreadLocal<>();

	private final Map<LockLease, Observation> holdings = new ConcurrentHashMap<>();

	/**
	 * Create a listener that observes through the given registry.
	 * @param registry the observation registry
	 */
	public ObservationLockListener(ObservationRegistry registry) {
		this.registry = registry;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Yes: observation handlers (metrics, tracing) must not block either.
	 */
	@Override
	public boolean isNonBlocking() {
		return true;
	}

	@Override
	public void onAcquiring(String name, String key) {
		this.acquisition.set(startAcquisition(name));
	}

	@Override
	public void onAcquired(LockLease lease, Duration waited) {
		Observation acquisition = this.acquisition.get();
		this.acquisition.remove();
		finish(acquisition, "acquired", null);
		startHolding(lease, null);
	}

	@Override
	public void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
		Observation acquisition = this.acquisition.get();
		this.acquisition.remove();
		finish(acquisition, (failure != null) ? "error" : "timeout", failure);
	}

	/**
	 * Observe an acquisition that no thread waits for from its start on the asking thread to
	 * its outcome on whichever thread decides it; the hold that follows has the same parent.
	 */
	@Override
	public Acquisition onAsyncAcquiring(String name, String key) {
		Observation parent = this.registry.getCurrentObservation();
		Observation acquisition = startAcquisition(name);
		return new Acquisition() {

			@Override
			public void acquired(LockLease lease, Duration waited) {
				finish(acquisition, "acquired", null);
				startHolding(lease, parent);
			}

			@Override
			public void notAcquired(Duration waited, Throwable failure) {
				finish(acquisition, (failure != null) ? "error" : "timeout", failure);
			}

		};
	}

	private Observation startAcquisition(String name) {
		return Observation.createNotStarted("distlock.acquisition", this.registry)
			.contextualName("lock acquire")
			.lowCardinalityKeyValue(NAME, name)
			.start();
	}

	/**
	 * Start observing a hold.
	 * @param parent the parent to give it, or {@code null} for the observation in scope
	 */
	private void startHolding(LockLease lease, Observation parent) {
		Observation holding = Observation.createNotStarted("distlock.holding", this.registry)
			.contextualName("lock hold")
			.lowCardinalityKeyValue(NAME, lease.name())
			.highCardinalityKeyValue("lock.fencing-token", Long.toString(lease.fencingToken()));
		if (parent != null) {
			holding.parentObservation(parent);
		}
		this.holdings.put(lease, holding.start());
	}

	@Override
	public void onLost(LockLease lease, LockLostException reason) {
		Observation holding = this.holdings.get(lease);
		if (holding != null) {
			holding.error(reason);
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Adds the event {@value #FENCING_REJECTED} to the hold's observation, which is still open:
	 * the stale holder has not released its lease yet. An event, not a key: it happens at a point
	 * in the hold, possibly more than once, and keeps the hold's key set (and so its meters' tags)
	 * the same for every hold.
	 */
	@Override
	public void onFencingRejected(LockLease lease, StaleFencingTokenException rejection) {
		Observation holding = this.holdings.get(lease);
		if (holding != null) {
			holding.event(FENCING_REJECTED_EVENT);
		}
	}

	@Override
	public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
		Observation holding = this.holdings.remove(lease);
		if (holding != null) {
			holding.lowCardinalityKeyValue("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT)).stop();
		}
	}

	private static void finish(Observation observation, String outcome, Throwable failure) {
		if (observation == null) {
			return;
		}
		if (failure != null) {
			observation.error(failure);
		}
		observation.lowCardinalityKeyValue("outcome", outcome).stop();
	}

}

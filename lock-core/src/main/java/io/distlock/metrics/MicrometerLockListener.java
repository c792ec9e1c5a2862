package io.distlock.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockLostException;
import io.distlock.core.LockReplicationException;
import io.distlock.core.StaleFencingTokenException;

/**
 * Records the life of every grant as Micrometer meters. Every meter carries the tag
 * {@code lock.name}, the bounded logical name, never the evaluated key.
 * <ul>
 * <li>{@code distlock.acquire} (timer, {@code outcome}: acquired, timeout, error, unreplicated):
 * time to acquire, waiting included; {@code unreplicated} when replicas did not acknowledge the
 * grant in time;</li>
 * <li>{@code distlock.held} (timer): how long locks were held;</li>
 * <li>{@code distlock.active} (long-task timer): locks held now, and for how long;</li>
 * <li>{@code distlock.renewal} (counter, {@code outcome}: renewed, failed): watchdog
 * renewals;</li>
 * <li>{@code distlock.lost} (counter): locks lost while held;</li>
 * <li>{@code distlock.release} (counter, {@code outcome}: released, lost, failed);</li>
 * <li>{@code distlock.fallback} (counter, {@code action}: skip, fallback): annotated calls that
 * did not get their lock.</li>
 * </ul>
 */
public class MicrometerLockListener implements LockListener {

	private static final String NAME = "lock.name";

	private final MeterRegistry registry;

	private final Map<LockLease, LongTaskTimer.Sample> active = new ConcurrentHashMap<>();

	/**
	 * Create a listener that records to the given registry.
	 * @param registry the meter registry
	 */
	public MicrometerLockListener(MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Yes: it only updates meters.
	 */
	@Override
	public boolean isNonBlocking() {
		return true;
	}

	@Override
	public void onAcquired(LockLease lease, Duration waited) {
		acquireTimer(lease.name(), "acquired").record(waited);
		this.active.put(lease, LongTaskTimer.builder("distlock.active")
			.description("Distributed locks held now")
			.tag(NAME, lease.name())
			.register(this.registry)
			.start());
	}

	@Override
	public void onNotAcquired(String name, String key, Duration waited, Throwable failure) {
		acquireTimer(name, outcome(failure)).record(waited);
	}

	private static String outcome(Throwable failure) {
		if (failure == null) {
			return "timeout";
		}
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LockReplicationException) {
				return "unreplicated";
			}
		}
		return "error";
	}

	@Override
	public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
		LongTaskTimer.Sample sample = this.active.remove(lease);
		if (sample != null) {
			sample.stop();
		}
		Timer.builder("distlock.held")
			.description("How long distributed locks were held")
			.tag(NAME, lease.name())
			.register(this.registry)
			.record(held);
		Counter.builder("distlock.release")
			.description("Releases of distributed locks, by what the store found")
			.tag(NAME, lease.name())
			.tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
			.register(this.registry)
			.increment();
	}

	@Override
	public void onRenewed(LockLease lease) {
		renewalCounter(lease.name(), "renewed").increment();
	}

	@Override
	public void onRenewalFailed(LockLease lease, Throwable failure) {
		renewalCounter(lease.name(), "failed").increment();
	}

	@Override
	public void onLost(LockLease lease, LockLostException reason) {
		Counter.builder("distlock.lost")
			.description("Distributed locks lost while held")
			.tag(NAME, lease.name())
			.register(this.registry)
			.increment();
	}

	@Override
	public void onFencingRejected(LockLease lease, StaleFencingTokenException rejection) {
		Counter.builder("distlock.fencing.rejected")
			.description("Writes refused where the data is written because the holder's fencing token was stale")
			.tag(NAME, lease.name())
			.register(this.registry)
			.increment();
	}

	@Override
	public void onFallback(String name, String action) {
		Counter.builder("distlock.fallback")
			.description("Annotated calls skipped or sent to their fallback because the lock was not acquired")
			.tag(NAME, name)
			.tag("action", action)
			.register(this.registry)
			.increment();
	}

	private Timer acquireTimer(String name, String outcome) {
		return Timer.builder("distlock.acquire")
			.description("Time to acquire distributed locks, waiting included")
			.tag(NAME, name)
			.tag("outcome", outcome)
			.register(this.registry);
	}

	private Counter renewalCounter(String name, String outcome) {
		return Counter.builder("distlock.renewal")
			.description("Watchdog renewals of held distributed locks")
			.tag(NAME, name)
			.tag("outcome", outcome)
			.register(this.registry);
	}

}

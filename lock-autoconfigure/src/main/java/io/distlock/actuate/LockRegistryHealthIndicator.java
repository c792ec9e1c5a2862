package io.distlock.actuate;

import java.time.Duration;
import java.time.Instant;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;
import io.distlock.core.LossStatistics;

/**
 * Health of a {@link LockRegistry} that implements {@link LockRegistryIntrospection}: DOWN when
 * its store does not answer within {@link #CHECK_TIMEOUT} or it no longer renews what it holds;
 * details tell how many locks are held and how many were lost, and when. A registry that does
 * not implement the introspection cannot be checked and is reported {@code UNKNOWN}.
 */
public class LockRegistryHealthIndicator extends AbstractHealthIndicator {

	/**
	 * How long a check waits for the store: half a second, so that a health endpoint polled
	 * without pause turns DOWN within a second of the store ceasing to answer (a check that had
	 * just begun when it stopped included), where the registry's own bound of a second would
	 * answer only after it.
	 */
	public static final Duration CHECK_TIMEOUT = Duration.ofMillis(500);

	private static final Duration RECENT = Duration.ofMinutes(5);

	private final LockRegistry registry;

	/**
	 * Create a health indicator for a registry.
	 * @param registry the registry
	 */
	public LockRegistryHealthIndicator(LockRegistry registry) {
		super("Lock store health check failed");
		this.registry = registry;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		if (!(this.registry instanceof LockRegistryIntrospection introspection)) {
			builder.unknown()
				.withDetail("reason", this.registry.getClass().getName() + " does not implement "
						+ LockRegistryIntrospection.class.getName());
			return;
		}
		LossStatistics losses = introspection.getLossStatistics();
		Instant lastLoss = losses.lastLoss();
		builder.withDetail("held", introspection.heldLocks().size())
			.withDetail("lost", losses.lostCount())
			.withDetail("lostRecently", lastLoss != null && lastLoss.isAfter(Instant.now().minus(RECENT)));
		if (lastLoss != null) {
			builder.withDetail("lastLoss", lastLoss.toString());
		}
		introspection.checkStore(CHECK_TIMEOUT);
		builder.up();
	}

}

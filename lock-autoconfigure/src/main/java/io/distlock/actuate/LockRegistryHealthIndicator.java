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
 * its store does not answer within the registry's bound or it no longer renews what it holds;
 * details tell how many locks are held and how many were lost, and when. A registry that does
 * not implement the introspection cannot be checked and is reported {@code UNKNOWN}.
 */
public class LockRegistryHealthIndicator extends AbstractHealthIndicator {

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
		introspection.checkStore();
		builder.up();
	}

}

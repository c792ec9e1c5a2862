package io.distlock.actuate;

import java.time.Duration;
import java.time.Instant;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.LossStatistics;

/**
 * Health of the lock store and the watchdog: DOWN when the store does not answer or the
 * watchdog stopped; details tell how many locks are held and how many were lost, and when.
 */
public class LockRegistryHealthIndicator extends AbstractHealthIndicator {

	private static final Duration RECENT = Duration.ofMinutes(5);

	private final AbstractLockRegistry registry;

	/**
	 * Create a health indicator for a registry.
	 * @param registry the registry
	 */
	public LockRegistryHealthIndicator(AbstractLockRegistry registry) {
		super("Lock store health check failed");
		this.registry = registry;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		LossStatistics losses = this.registry.getLossStatistics();
		Instant lastLoss = losses.lastLoss();
		builder.withDetail("watchdog", this.registry.isWatchdogRunning() ? "running" : "stopped")
			.withDetail("held", this.registry.heldLocks().size())
			.withDetail("lost", losses.lostCount())
			.withDetail("lostRecently", lastLoss != null && lastLoss.isAfter(Instant.now().minus(RECENT)));
		if (lastLoss != null) {
			builder.withDetail("lastLoss", lastLoss.toString());
		}
		if (!this.registry.isWatchdogRunning()) {
			builder.down();
			return;
		}
		this.registry.checkStore();
		builder.up();
	}

}

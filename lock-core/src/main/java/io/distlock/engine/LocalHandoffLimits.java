package io.distlock.engine;

import java.time.Duration;

import io.distlock.core.InvalidRegistryOptionException;

/**
 * How far a contended lock may pass between threads of one process without a Redis round trip,
 * as a registry builder checks it. The limits are checked here and nowhere else. Public for the
 * builders of registries on other stores ({@code PostgresLockRegistry.Builder} in distlock-jdbc).
 *
 * @param maxHandoffs how many handoffs in a row, between 0 (off) and
 * {@link RegistrySettings#MAX_LOCAL_HANDOFFS}
 * @param maxTime how long after Redis granted it a lock may still be handed over, positive
 */
public record LocalHandoffLimits(int maxHandoffs, Duration maxTime) {

	/** The default limits. */
	public static final LocalHandoffLimits DEFAULT = new LocalHandoffLimits(RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFFS,
			RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFF_TIME);

	/**
	 * Check the limits.
	 * @throws InvalidRegistryOptionException naming the limit that is invalid
	 */
	public LocalHandoffLimits {
		if (maxHandoffs < 0 || maxHandoffs > RegistrySettings.MAX_LOCAL_HANDOFFS) {
			throw new InvalidRegistryOptionException("maxLocalHandoffs", maxHandoffs, "maxLocalHandoffs must be"
					+ " between 0 and " + RegistrySettings.MAX_LOCAL_HANDOFFS + " but was '" + maxHandoffs + "'");
		}
		if (maxTime == null || maxTime.isNegative() || maxTime.isZero()) {
			throw new InvalidRegistryOptionException("maxLocalHandoffTime", maxTime,
					"maxLocalHandoffTime must be positive but was '" + maxTime + "'");
		}
	}

}

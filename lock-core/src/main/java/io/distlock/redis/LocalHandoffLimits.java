package io.distlock.redis;

import java.time.Duration;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.engine.RegistrySettings;

/**
 * How far a contended lock may pass between threads of one process without a Redis round trip,
 * as a registry builder checks it. The limits are checked here and nowhere else.
 *
 * @param maxHandoffs how many handoffs in a row, between 0 (off) and
 * {@link RegistrySettings#MAX_LOCAL_HANDOFFS}
 * @param maxTime how long after Redis granted it a lock may still be handed over, positive
 */
record LocalHandoffLimits(int maxHandoffs, Duration maxTime) {

	/** The default limits. */
	static final LocalHandoffLimits DEFAULT = new LocalHandoffLimits(RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFFS,
			RegistrySettings.DEFAULT_MAX_LOCAL_HANDOFF_TIME);

	/**
	 * Check the limits.
	 * @throws InvalidRegistryOptionException naming the limit that is invalid
	 */
	LocalHandoffLimits {
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

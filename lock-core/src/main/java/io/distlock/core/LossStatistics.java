package io.distlock.core;

import java.time.Instant;

/**
 * How many locks a registry has lost while they were held, and when it last lost one (see
 * {@link LockRegistryIntrospection#getLossStatistics()}).
 *
 * @param lostCount how many locks were lost while held since the registry started
 * @param lastLoss when the registry last lost a lock (wall clock, for display only), or
 * {@code null} if it never did
 */
public record LossStatistics(long lostCount, Instant lastLoss) {

	/** No loss yet. */
	public static final LossStatistics NONE = new LossStatistics(0, null);

}

package io.distlock.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A snapshot of one lock a registry holds, for the Actuator endpoint and diagnostics (see
 * {@link LockRegistryIntrospection#heldLocks()}).
 *
 * @param name the logical name the lock was requested under
 * @param key the key
 * @param since when the grant was made (wall clock, for display only)
 * @param fencingToken the grant's fencing token
 * @param remaining how long the lease stays valid without another renewal
 * @param renewals how many times the watchdog renewed it
 * @param renewed whether the watchdog renews it (no fixed lease)
 * @param holds how many holds (reentrant acquisitions) are open
 */
public record HeldLock(String name, String key, Instant since, long fencingToken, Duration remaining, long renewals,
		boolean renewed, int holds) {
}

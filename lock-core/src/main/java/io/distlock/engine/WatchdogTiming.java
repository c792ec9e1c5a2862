package io.distlock.engine;

import java.time.Duration;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockRequest;

/**
 * The lease of a watchdog-renewed grant and how often the watchdog renews it, as a registry
 * builder checks them: the renewal interval has a floor, and one failed renewal must be retried
 * before the lease expires (so a derived interval needs a lease of three floors). Each of these
 * rules is checked here and nowhere else. Public for the builders of registries on other stores
 * ({@code PostgresLockRegistry.Builder} in distlock-jdbc).
 *
 * @param leaseTime the lease, positive
 * @param renewalInterval the renewal interval, at most half the lease
 */
public record WatchdogTiming(Duration leaseTime, Duration renewalInterval) {

	/**
	 * Check the lease and the renewal interval, or derive the interval from the lease.
	 * @param leaseTime the lease, positive
	 * @param renewalInterval the renewal interval that was set, or {@code null} for a third of
	 * the lease
	 * @return the timing
	 * @throws InvalidRegistryOptionException naming the option that is invalid
	 */
	public static WatchdogTiming of(Duration leaseTime, Duration renewalInterval) {
		if (leaseTime == null || leaseTime.isNegative() || leaseTime.isZero()) {
			throw new InvalidRegistryOptionException("leaseTime", leaseTime,
					"leaseTime must be positive but was '" + leaseTime + "'");
		}
		Duration floor = RegistrySettings.MIN_RENEWAL_INTERVAL;
		if (renewalInterval == null) {
			Duration shortestWatchdogLease = floor.multipliedBy(3);
			if (leaseTime.compareTo(shortestWatchdogLease) < 0) {
				throw new InvalidRegistryOptionException("leaseTime", leaseTime, "leaseTime must be at least "
						+ shortestWatchdogLease.toMillis() + "ms but was '" + leaseTime + "': the watchdog renews a"
						+ " lock every third of its lease and not more often than every " + floor.toMillis()
						+ "ms (a fixed lease may be as short as " + LockRequest.MIN_LEASE_TIME.toMillis() + "ms, the"
						+ " drift margin kept back from every lease plus enough validity to be granted)");
			}
			return new WatchdogTiming(leaseTime, RegistrySettings.defaultRenewalInterval(leaseTime));
		}
		try {
			// Checked before the renewal interval: a lease below the minimum is the mistake to name.
			LockRequest.requireMinLease(leaseTime, "leaseTime");
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRegistryOptionException("leaseTime", leaseTime, ex.getMessage());
		}
		if (renewalInterval.isNegative() || renewalInterval.isZero()) {
			throw new InvalidRegistryOptionException("renewalInterval", renewalInterval,
					"renewalInterval must be positive but was '" + renewalInterval + "'");
		}
		if (renewalInterval.compareTo(floor) < 0) {
			throw new InvalidRegistryOptionException("renewalInterval", renewalInterval,
					"renewalInterval must be at least " + floor.toMillis() + "ms but was '" + renewalInterval + "'");
		}
		if (renewalInterval.multipliedBy(2).compareTo(leaseTime) > 0) {
			throw new InvalidRegistryOptionException("renewalInterval", renewalInterval, "renewalInterval '"
					+ renewalInterval + "' must be at most half of leaseTime '" + leaseTime
					+ "' so that one failed renewal can be retried before the lease expires");
		}
		return new WatchdogTiming(leaseTime, renewalInterval);
	}

}

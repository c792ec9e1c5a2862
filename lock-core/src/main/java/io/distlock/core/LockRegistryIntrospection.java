package io.distlock.core;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a {@link LockRegistry} tells operators and the framework about itself: the locks it holds
 * now, the locks it lost, whether its store answers, and which kinds of lock it offers.
 * <p>
 * A registry implements it beside {@link LockRegistry}; every registry distlock ships does
 * ({@code RedisLockRegistry}, {@code RedlockRegistry}, {@code InMemoryLockRegistry}). The
 * Actuator {@code locks} endpoint lists the held locks of any {@code LockRegistry} bean that
 * implements it, the {@code distlock} health indicator checks its store, and the startup
 * validation of {@code @DistributedLock} refuses an attribute that asks for a
 * {@link LockFeature} it does not offer. A registry that does not implement it still works; the
 * endpoint then lists only the annotation definitions, and the health indicator reports
 * {@code UNKNOWN}.
 * <p>
 * Separate from {@code LockRegistry} because callers never need it: it is a view for
 * monitoring, not a way to lock.
 */
public interface LockRegistryIntrospection {

	/**
	 * Return a snapshot of the locks this registry holds now, one entry per grant.
	 * @return the held locks, empty when none
	 */
	List<HeldLock> heldLocks();

	/**
	 * Return how many locks this registry lost while they were held, and when it last did.
	 * @return the loss statistics
	 */
	LossStatistics getLossStatistics();

	/**
	 * Check that this registry can grant and keep locks now: it is open, it renews what it
	 * holds, and its store answers. Returns or throws within a short bound of its own (about a
	 * second for the registries distlock ships), whatever the driver's command timeout is, so a
	 * health check never hangs on an unreachable store.
	 * @throws RuntimeException why the registry cannot serve locks now
	 */
	void checkStore();

	/**
	 * Check as {@link #checkStore()} does, waiting at most the given time for the store's
	 * answer, so that a caller who must answer sooner (a health indicator polled every second)
	 * can. A registry that cannot bound its check otherwise runs {@link #checkStore()}.
	 * @param timeout how long to wait for the store at most
	 * @throws RuntimeException why the registry cannot serve locks now
	 */
	default void checkStore(Duration timeout) {
		checkStore();
	}

	/**
	 * Return the kinds of lock this registry offers beyond plain exclusive locks and
	 * multi-locks, which every registry offers.
	 * @return the supported features; all of them by default
	 */
	default Set<LockFeature> supportedFeatures() {
		return EnumSet.allOf(LockFeature.class);
	}

	/**
	 * Return the key this registry locks for a key a caller gives: the key itself, or, for a
	 * key longer than the registry allows with long keys digested, its digest form. What leases
	 * report as their {@link LockLease#key()}, so that code looking for a held lease by a
	 * caller's key finds it.
	 * @param key the key as the caller gives it
	 * @return the key as locked; the key itself by default
	 * @throws LockKeyException if the registry refuses the key
	 */
	default String lockKey(String key) {
		return key;
	}

	/**
	 * Return the longest fixed lease, extension or hold-at-least this registry grants, if it
	 * limits them, so that a {@code @DistributedLock} with a longer {@code leaseTime} or
	 * {@code holdAtLeast} fails at startup rather than at its first call. The registries distlock
	 * ships limit them to their {@code maxLeaseTime} (24 hours by default), a Redlock registry
	 * with a restart delay to the delay if it is shorter.
	 * @return the longest lease; empty (the default) for no limit
	 */
	default Optional<Duration> maxLeaseTime() {
		return Optional.empty();
	}

}

package io.distlock.test.memory;

import java.time.Duration;

import io.distlock.core.LockListener;
import io.distlock.core.WaitStrategy;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.KeyLimit;
import io.distlock.engine.RegistrySettings;

/**
 * A {@link io.distlock.core.LockRegistry} inside one JVM with the same semantics as
 * {@code RedisLockRegistry} (reentrancy, leases, watchdog, fencing tokens, the loss signal), for
 * unit tests that should not need a Redis server. Two instances share nothing, like two Redis
 * servers; {@link #peer(Duration)} creates a registry on the same store, like a second
 * application instance on the same Redis.
 * <p>
 * {@link #forceDelete(String)} removes a held key as an operator would, to test how code reacts
 * when its lock is lost. It implements {@link io.distlock.core.LockRegistryIntrospection}, so an
 * application whose {@code LockRegistry} bean it is gets {@code /actuator/locks} and the health
 * check as with Redis. It grants leases of up to 365 days and takes keys of up to 1 MiB (longer
 * ones digested), the most any registry may be given, so that it never refuses a lease or key
 * that an application's {@code distlock.max-lease-time} and {@code distlock.max-key-bytes} allow.
 */
public class InMemoryLockRegistry extends AbstractLockRegistry {

	private final InMemoryLockStore store;

	/**
	 * Create a registry with a 30 s lease renewed every 10 s while held.
	 */
	public InMemoryLockRegistry() {
		this(RegistrySettings.DEFAULT_LEASE_TIME, LockListener.NONE);
	}

	/**
	 * Create a registry with the given lease, renewed every third of it while held.
	 * @param leaseTime the lease of a grant without a fixed lease time
	 * @param listener the listener told about every grant
	 */
	public InMemoryLockRegistry(Duration leaseTime, LockListener listener) {
		this(new InMemoryLockStore(), leaseTime, listener);
	}

	private InMemoryLockRegistry(InMemoryLockStore store, Duration leaseTime, LockListener listener) {
		// As long a lease and key as any registry may be given: a test double must not refuse the
		// leases and keys an application's own distlock.max-lease-time and max-key-bytes allow.
		super(store, new RegistrySettings(leaseTime, RegistrySettings.defaultRenewalInterval(leaseTime),
				WaitStrategy.PUB_SUB, RegistrySettings.DEFAULT_PUB_SUB_RETRY_INTERVAL, listener,
				RegistrySettings.newInstanceId())
			.withMaxLeaseTime(RegistrySettings.LIMIT_MAX_LEASE_TIME)
			.withKeyLimit(new KeyLimit(KeyLimit.LIMIT_MAX_BYTES, KeyLimit.Overflow.HASH)));
		this.store = store;
	}

	/**
	 * Create another registry on this registry's store, as a second process on the same Redis:
	 * it has its own local gates and watchdog, and competes for the same keys.
	 * @param leaseTime the lease of the peer's watchdog-renewed grants
	 * @return the peer registry
	 */
	public InMemoryLockRegistry peer(Duration leaseTime) {
		return new InMemoryLockRegistry(this.store, leaseTime, LockListener.NONE);
	}

	/**
	 * Delete a held key whoever holds it, as an operator's {@code DEL} in Redis would: the holder
	 * is told at its next renewal (or at release) that its lock was lost.
	 * @param key the key
	 * @return whether the key was held
	 */
	public boolean forceDelete(String key) {
		return this.store.delete(key);
	}

	/**
	 * Return whether some grant holds the key in the store right now.
	 * @param key the key
	 * @return whether the key is held
	 */
	public boolean isHeldInStore(String key) {
		return this.store.isHeld(key);
	}

}

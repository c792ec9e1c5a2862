package io.distlock.autoconfigure;

import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.redis.EvictionPolicy;

/**
 * Checks at startup that no Redis holding the locks evicts keys under memory pressure: an
 * evicted lock key lets a second holder in while the first still runs. Checks the application's
 * Redis, or every Redlock node. Warns, or refuses to start with
 * {@code distlock.eviction-check=strict}.
 */
final class LockStoreEvictionCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LockStoreEvictionCheck.class);

	private static final String PROPERTY = "distlock.eviction-check";

	private final Map<String, RedisConnectionFactory> stores;

	private final DistlockProperties.EvictionCheck mode;

	/**
	 * Check the Redis stores that hold the locks.
	 * @param stores each store's connection factory, by the name that says which one it is in a
	 * message, such as {@code the Redis that holds the locks}
	 * @param mode what to do when a store may evict keys
	 */
	LockStoreEvictionCheck(Map<String, RedisConnectionFactory> stores, DistlockProperties.EvictionCheck mode) {
		this.stores = stores;
		this.mode = mode;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.mode == DistlockProperties.EvictionCheck.OFF) {
			return;
		}
		this.stores.forEach(this::check);
	}

	private void check(String store, RedisConnectionFactory connectionFactory) {
		EvictionPolicy policy;
		try {
			policy = EvictionPolicy.read(connectionFactory);
		}
		catch (RuntimeException ex) {
			String reason = "could not read the eviction policy of " + store + " (CONFIG GET maxmemory*): "
					+ ex.getMessage();
			if (this.mode == DistlockProperties.EvictionCheck.STRICT) {
				throw new InvalidLockPropertyException(PROPERTY, "strict",
						"requires reading the eviction policy, but " + reason
								+ ". Use 'warn' where CONFIG is not available");
			}
			logger.info("Distributed locks: " + reason);
			return;
		}
		if (!policy.mayEvictLocks()) {
			return;
		}
		String reason = store + " evicts keys at maxmemory " + policy.maxMemoryBytes() + " bytes (maxmemory-policy "
				+ policy.policy() + "): a held lock's key can be evicted, and another instance then acquires the "
				+ "lock while its holder still runs. Use maxmemory-policy " + EvictionPolicy.NO_EVICTION
				+ " (or no maxmemory) for that Redis";
		if (this.mode == DistlockProperties.EvictionCheck.STRICT) {
			throw new InvalidLockPropertyException(PROPERTY, "strict", "refuses to start: " + reason);
		}
		logger.warn("Distributed locks: " + reason + ", or set " + PROPERTY + "=strict to refuse to start");
	}

}

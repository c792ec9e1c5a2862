package io.distlock.autoconfigure;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.redis.EvictionPolicy;

/**
 * Checks at startup that no Redis holding the locks evicts keys under memory pressure: an
 * evicted lock key lets a second holder in while the first still runs. Warns, or refuses to start
 * with {@code distlock.eviction-check=strict}.
 */
final class LockStoreEvictionCheck extends LockStoreSettingCheck<EvictionPolicy> {

	private static final String PROPERTY = "distlock.eviction-check";

	/**
	 * Check the Redis stores that hold the locks.
	 * @param stores each store's connection factory, by its name in messages
	 * @param needed how many stores must be read for the strict check to pass: 1 for one Redis,
	 * the quorum for Redlock
	 * @param mode what to do when a store may evict keys
	 */
	LockStoreEvictionCheck(Map<String, RedisConnectionFactory> stores, int needed,
			DistlockProperties.StoreCheck mode) {
		super(stores, needed, PROPERTY, mode, "the eviction policy", "CONFIG GET maxmemory*");
	}

	@Override
	EvictionPolicy read(RedisConnectionFactory connectionFactory) {
		return EvictionPolicy.read(connectionFactory);
	}

	@Override
	@Nullable String risk(String store, EvictionPolicy policy) {
		if (!policy.mayEvictLocks()) {
			return null;
		}
		return store + " evicts keys at maxmemory " + policy.maxMemoryBytes() + " bytes (maxmemory-policy "
				+ policy.policy() + "): a held lock's key can be evicted, and another instance then acquires the "
				+ "lock while its holder still runs. Use maxmemory-policy " + EvictionPolicy.NO_EVICTION
				+ " (or no maxmemory) for that Redis";
	}

}

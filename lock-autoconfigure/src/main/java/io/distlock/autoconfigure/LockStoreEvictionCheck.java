package io.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.redis.EvictionPolicy;

/**
 * Checks at startup that no Redis holding the locks evicts keys under memory pressure: an
 * evicted lock key lets a second holder in while the first still runs. Checks the application's
 * Redis, or every Redlock node, in parallel and within {@link StoreProbes#TIMEOUT}. Warns, or refuses
 * to start with {@code distlock.eviction-check=strict}: when a store that answered may evict, or
 * when fewer stores answered than the locks need (the one Redis, or a Redlock quorum; a node
 * that is down does not stop a Redlock registry from starting).
 */
final class LockStoreEvictionCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LockStoreEvictionCheck.class);

	private static final String PROPERTY = "distlock.eviction-check";

	private final Map<String, RedisConnectionFactory> stores;

	private final int needed;

	private final DistlockProperties.EvictionCheck mode;

	/**
	 * Check the Redis stores that hold the locks.
	 * @param stores each store's connection factory, by the name that says which one it is in a
	 * message, such as {@code the Redis that holds the locks}
	 * @param needed how many stores must be read for the strict check to pass: 1 for one Redis,
	 * the quorum for Redlock
	 * @param mode what to do when a store may evict keys
	 */
	LockStoreEvictionCheck(Map<String, RedisConnectionFactory> stores, int needed,
			DistlockProperties.EvictionCheck mode) {
		this.stores = stores;
		this.needed = needed;
		this.mode = mode;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.mode == DistlockProperties.EvictionCheck.OFF) {
			return;
		}
		Map<String, CompletableFuture<EvictionPolicy>> reads = StoreProbes.run(this.stores,
				(store, connectionFactory) -> EvictionPolicy.read(connectionFactory));
		List<String> unread = new ArrayList<>();
		reads.forEach((store, read) -> {
			if (read.isDone() && !read.isCompletedExceptionally()) {
				check(store, read.join());
			}
			else {
				unread.add(store + " (" + StoreProbes.noAnswer(read) + ")");
			}
		});
		if (unread.isEmpty()) {
			return;
		}
		String reason = "could not read the eviction policy (CONFIG GET maxmemory*) of " + String.join(", ", unread);
		if (this.mode == DistlockProperties.EvictionCheck.STRICT && this.stores.size() - unread.size() < this.needed) {
			throw new InvalidLockPropertyException(PROPERTY, "strict",
					"requires reading the eviction policy, but " + reason + ". Use 'warn' where CONFIG is not available");
		}
		logger.info("Distributed locks: " + reason);
	}

	private void check(String store, EvictionPolicy policy) {
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

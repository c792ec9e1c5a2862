package io.distlock.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.redis.EvictionPolicy;

/**
 * Checks at startup that the Redis holding the locks does not evict keys under memory pressure:
 * an evicted lock key lets a second holder in while the first still runs. Warns, or refuses to
 * start with {@code distlock.eviction-check=strict}.
 */
final class LockStoreEvictionCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LockStoreEvictionCheck.class);

	private static final String PROPERTY = "distlock.eviction-check";

	private final RedisConnectionFactory connectionFactory;

	private final DistlockProperties.EvictionCheck mode;

	LockStoreEvictionCheck(RedisConnectionFactory connectionFactory, DistlockProperties.EvictionCheck mode) {
		this.connectionFactory = connectionFactory;
		this.mode = mode;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.mode == DistlockProperties.EvictionCheck.OFF) {
			return;
		}
		EvictionPolicy policy;
		try {
			policy = EvictionPolicy.read(this.connectionFactory);
		}
		catch (RuntimeException ex) {
			String reason = "could not read the eviction policy of the Redis that holds the locks (CONFIG GET "
					+ "maxmemory*): " + ex.getMessage();
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
		String reason = "the Redis that holds the locks evicts keys at maxmemory " + policy.maxMemoryBytes()
				+ " bytes (maxmemory-policy " + policy.policy() + "): a held lock's key can be evicted, and another "
				+ "instance then acquires the lock while its holder still runs. Use maxmemory-policy "
				+ EvictionPolicy.NO_EVICTION + " (or no maxmemory) for that Redis";
		if (this.mode == DistlockProperties.EvictionCheck.STRICT) {
			throw new InvalidLockPropertyException(PROPERTY, "strict", "refuses to start: " + reason);
		}
		logger.warn("Distributed locks: " + reason + ", or set " + PROPERTY + "=strict to refuse to start");
	}

}

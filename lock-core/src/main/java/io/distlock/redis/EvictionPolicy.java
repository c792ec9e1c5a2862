package io.distlock.redis;

import java.util.Properties;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What a Redis deployment does when it runs out of memory, as far as locks are concerned: with a
 * {@code maxmemory} limit and any policy but {@code noeviction}, Redis may evict a held lock's
 * key (the {@code volatile-*} policies pick among keys with a TTL, which every lock key has), and
 * another client then acquires the lock while its holder still runs.
 *
 * @param policy the {@code maxmemory-policy}; on a cluster, the first node's that may evict
 * @param maxMemoryBytes the {@code maxmemory}, 0 for no limit; on a cluster, the largest
 */
public record EvictionPolicy(String policy, long maxMemoryBytes) {

	/** The only policy under which Redis never evicts a key. */
	public static final String NO_EVICTION = "noeviction";

	/**
	 * Read the policy with {@code CONFIG GET maxmemory*}, which managed services may refuse.
	 * @param connectionFactory the connections to the Redis that holds the locks
	 * @return the policy
	 * @throws RuntimeException the driver's exception if {@code CONFIG GET} fails
	 */
	public static EvictionPolicy read(RedisConnectionFactory connectionFactory) {
		Properties config;
		try (RedisConnection connection = connectionFactory.getConnection()) {
			config = connection.serverCommands().getConfig("maxmemory*");
		}
		return of(config);
	}

	/**
	 * Return the policy a {@code CONFIG GET maxmemory*} reply describes. A cluster's reply names
	 * each node's settings with the node as prefix ({@code host:port.maxmemory}).
	 * @param config the reply
	 * @return the policy
	 */
	static EvictionPolicy of(Properties config) {
		String policy = NO_EVICTION;
		long maxMemory = 0;
		for (String name : config.stringPropertyNames()) {
			String value = config.getProperty(name);
			if (name.equals("maxmemory-policy") || name.endsWith(".maxmemory-policy")) {
				if (!NO_EVICTION.equals(value)) {
					policy = value;
				}
			}
			else if (name.equals("maxmemory") || name.endsWith(".maxmemory")) {
				maxMemory = Math.max(maxMemory, Long.parseLong(value.trim()));
			}
		}
		return new EvictionPolicy(policy, maxMemory);
	}

	/**
	 * Return whether Redis may evict a lock key under memory pressure.
	 * @return {@code true} with a memory limit and a policy other than {@code noeviction}
	 */
	public boolean mayEvictLocks() {
		return this.maxMemoryBytes > 0 && !NO_EVICTION.equals(this.policy);
	}

}

package io.distlock.autoconfigure;

import java.util.Map;
import java.util.Properties;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Checks at startup that every Redlock node keeps its keys across a restart (catalogue B21): a
 * node without an append-only file that crashes and comes back at once, empty, can count
 * towards a second client's quorum for a lock that a first client still holds. Warns, or refuses
 * to start with {@code distlock.redlock.persistence-check=strict}. Not created when the
 * application declares a delayed restart ({@code distlock.redlock.restart-delay}), the other
 * remedy of the Redlock analysis.
 */
final class RedlockPersistenceCheck extends LockStoreSettingCheck<String> {

	static final String PROPERTY = "distlock.redlock.persistence-check";

	/**
	 * Check the Redlock nodes.
	 * @param nodes each node's connection factory, by its name in messages
	 * @param quorum how many nodes must be read for the strict check to pass
	 * @param mode what to do when a node keeps no append-only file
	 */
	RedlockPersistenceCheck(Map<String, RedisConnectionFactory> nodes, int quorum, DistlockProperties.StoreCheck mode) {
		super(nodes, quorum, PROPERTY, mode, "the persistence setting", "CONFIG GET appendonly");
	}

	/**
	 * Read the node's {@code appendonly} setting: {@code yes} or {@code no}.
	 */
	@Override
	String read(RedisConnectionFactory connectionFactory) {
		Properties config;
		try (RedisConnection connection = connectionFactory.getConnection()) {
			config = connection.serverCommands().getConfig("appendonly");
		}
		return String.valueOf(config.getProperty("appendonly")).trim();
	}

	@Override
	@Nullable String risk(String node, String appendOnly) {
		if ("yes".equalsIgnoreCase(appendOnly)) {
			return null;
		}
		return node + " keeps no append-only file (appendonly " + appendOnly + "): if it crashes and comes back at "
				+ "once, empty, another instance can count it towards a quorum for a lock that is still held. Run "
				+ "every Redlock node with appendonly yes and appendfsync always, or keep a crashed node out for "
				+ "longer than the longest lease and declare that with distlock.redlock.restart-delay";
	}

}

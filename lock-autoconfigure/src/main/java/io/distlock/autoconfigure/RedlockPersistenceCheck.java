package io.distlock.autoconfigure;

import java.util.Map;
import java.util.Properties;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Checks at startup that every Redlock node keeps its keys across a crash (catalogue B21): a
 * node that comes back without locks it granted can count towards a second client's quorum for
 * a lock that a first client still holds. That is a node without an append-only file, which
 * comes back empty or from its last RDB snapshot, and one that fsyncs the file only every
 * second or when the OS decides, which loses its last grants to a power loss or an OS crash.
 * Warns, or refuses to start with {@code distlock.redlock.persistence-check=strict}. Off when
 * the registry enforces a delayed restart instead ({@code distlock.redlock.restart-delay}).
 */
final class RedlockPersistenceCheck extends LockStoreSettingCheck<RedlockPersistenceCheck.AppendOnlyFile> {

	static final String PROPERTY = "distlock.redlock.persistence-check";

	/**
	 * Check the Redlock nodes.
	 * @param nodes each node's connection factory, by its name in messages
	 * @param quorum how many nodes must be read for the strict check to pass
	 * @param mode what to do when a node may lose grants in a crash
	 */
	RedlockPersistenceCheck(Map<String, RedisConnectionFactory> nodes, int quorum, DistlockProperties.StoreCheck mode) {
		super(nodes, quorum, PROPERTY, mode, "the persistence setting", "CONFIG GET append*");
	}

	@Override
	AppendOnlyFile read(RedisConnectionFactory connectionFactory) {
		Properties config;
		try (RedisConnection connection = connectionFactory.getConnection()) {
			config = connection.serverCommands().getConfig("append*");
		}
		return new AppendOnlyFile(String.valueOf(config.getProperty("appendonly")).trim(),
				String.valueOf(config.getProperty("appendfsync")).trim());
	}

	@Override
	@Nullable String risk(String node, AppendOnlyFile file) {
		String remedy = "Run every Redlock node with appendonly yes and appendfsync always, or set "
				+ "distlock.redlock.restart-delay so that a restarted node sits out until every lease it may have "
				+ "lost has run out";
		if (!"yes".equalsIgnoreCase(file.appendOnly())) {
			return node + " keeps no append-only file (appendonly " + file.appendOnly() + "): if it crashes and "
					+ "comes back at once, empty or from its last snapshot, another instance can count it towards a "
					+ "quorum for a lock that is still held. " + remedy;
		}
		if (!"always".equalsIgnoreCase(file.appendFsync())) {
			return node + " fsyncs its append-only file only now and then (appendfsync " + file.appendFsync()
					+ "): a power loss or an OS crash can lose its last grants, and another instance can then "
					+ "count it towards a quorum for a lock that is still held. " + remedy;
		}
		return null;
	}

	/**
	 * A node's append-only file settings.
	 * @param appendOnly {@code appendonly}: yes or no
	 * @param appendFsync {@code appendfsync}: always, everysec or no
	 */
	record AppendOnlyFile(String appendOnly, String appendFsync) {
	}

}

package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;

import io.distlock.store.LockMode;
import io.distlock.store.LockStore.HeldKey;

import static io.distlock.redis.ScriptArguments.bytes;
import static io.distlock.redis.ScriptArguments.leaseMillis;

/**
 * Renews a batch of held grants in as few scripts as the server allows: readers apart from the
 * others (two scripts), and on a cluster one script per hash slot (a script may touch only one
 * slot there). The scripts of a batch are sent together, without waiting for one another.
 */
final class RenewalBatches {

	private final RedisLockKeys keys;

	private volatile Boolean cluster;

	RenewalBatches(RedisLockKeys keys) {
		this.keys = keys;
	}

	/**
	 * Renew the grants on the connection.
	 * @return for each grant, whether its owner still held it (and now holds it for the lease)
	 */
	CompletableFuture<boolean[]> renew(RedisConnection connection, List<HeldKey> grants, Duration leaseTime) {
		boolean[] renewed = new boolean[grants.size()];
		byte[] lease = leaseMillis(leaseTime);
		List<CompletableFuture<Void>> scripts = new ArrayList<>();
		for (List<Integer> group : groupForScripts(connection, grants)) {
			boolean readers = grants.get(group.get(0)).mode() == LockMode.READ;
			byte[][] keysAndArgs = new byte[group.size() * 2 + 1][];
			for (int i = 0; i < group.size(); i++) {
				HeldKey grant = grants.get(group.get(i));
				keysAndArgs[i] = heldKeyName(grant);
				keysAndArgs[group.size() + 1 + i] = bytes(grant.owner());
			}
			keysAndArgs[group.size()] = lease;
			LuaScript script = readers ? ReadWriteScripts.READ_RENEW : ExclusiveScripts.RENEW;
			CompletableFuture<List<Object>> reply = script.run(connection, group.size(), keysAndArgs);
			scripts.add(reply.thenAccept((answer) -> {
				for (int i = 0; i < group.size(); i++) {
					renewed[group.get(i)] = ((Number) answer.get(i)).longValue() == 1;
				}
			}));
		}
		return CompletableFuture.allOf(scripts.toArray(CompletableFuture[]::new)).thenApply((done) -> renewed);
	}

	/**
	 * Return the Redis key that holds a grant: the lock, the write lock, or the readers set.
	 */
	byte[] heldKeyName(HeldKey grant) {
		return switch (grant.mode()) {
			case EXCLUSIVE, FAIR -> this.keys.lock(grant.key());
			case WRITE -> this.keys.write(grant.key());
			case READ -> this.keys.readers(grant.key());
		};
	}

	/**
	 * Group the grants' indexes so that each group fits one script.
	 */
	private List<List<Integer>> groupForScripts(RedisConnection connection, List<HeldKey> grants) {
		boolean cluster = isCluster(connection);
		Map<String, List<Integer>> groups = new LinkedHashMap<>();
		for (int i = 0; i < grants.size(); i++) {
			HeldKey grant = grants.get(i);
			String group = (grant.mode() == LockMode.READ) ? "read" : "lock";
			if (cluster) {
				// The slot of the UTF-8 bytes Redis hashes: calculateSlot(String) encodes with the
				// platform's default charset, which may be another one (Java 17 without a locale).
				group += ":" + ClusterSlotHashUtil.calculateSlot(this.keys.lock(grant.key()));
			}
			groups.computeIfAbsent(group, (g) -> new ArrayList<>()).add(i);
		}
		return new ArrayList<>(groups.values());
	}

	private boolean isCluster(RedisConnection connection) {
		Boolean known = this.cluster;
		if (known == null) {
			known = connection instanceof RedisClusterConnection;
			this.cluster = known;
		}
		return known;
	}

}

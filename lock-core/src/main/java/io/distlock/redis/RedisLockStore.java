package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.engine.LockStore;

/**
 * A {@link LockStore} on one Redis deployment: every operation is one script, run by SHA over
 * the application's {@link RedisConnectionFactory} (one round trip each).
 */
final class RedisLockStore implements LockStore {

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockKeys keys;

	private final byte[] fenceRetentionMillis;

	private final ReleaseSubscription subscription;

	private volatile Boolean cluster;

	RedisLockStore(RedisConnectionFactory connectionFactory, RedisLockKeys keys, Duration fenceRetentionTime) {
		this.connectionFactory = connectionFactory;
		this.keys = keys;
		this.fenceRetentionMillis = leaseMillis(fenceRetentionTime);
		this.subscription = new ReleaseSubscription(connectionFactory, keys.channel());
	}

	@Override
	public void checkKey(String key) {
		this.keys.lockKey(key);
	}

	@Override
	public Acquisition tryAcquire(String key, String owner, Duration leaseTime, Duration waitTime) {
		byte[] lockKey = this.keys.lock(key);
		List<Object> reply;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			reply = RedisLockScripts.ACQUIRE.run(connection, 3, lockKey, this.keys.fence(key), this.keys.waiting(key),
					bytes(owner), leaseMillis(leaseTime), this.fenceRetentionMillis, millis(waitTime));
		}
		if (reply == null || reply.size() != 2) {
			throw new IllegalStateException("Unexpected reply from the acquire script: " + reply);
		}
		long value = ((Number) reply.get(1)).longValue();
		return (((Number) reply.get(0)).longValue() == 1) ? Acquisition.granted(value) : Acquisition.taken(value);
	}

	@Override
	public boolean release(String key, String owner) {
		Long released;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			released = RedisLockScripts.RELEASE.run(connection, 2, this.keys.lock(key), this.keys.waiting(key),
					bytes(owner), this.keys.channel(), bytes(key));
		}
		return released != null && released == 1L;
	}

	@Override
	public boolean[] renew(List<HeldKey> grants, Duration leaseTime) {
		boolean[] renewed = new boolean[grants.size()];
		byte[] lease = leaseMillis(leaseTime);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (List<Integer> slot : groupBySlot(connection, grants)) {
				byte[][] keysAndArgs = new byte[slot.size() * 2 + 1][];
				for (int i = 0; i < slot.size(); i++) {
					HeldKey grant = grants.get(slot.get(i));
					keysAndArgs[i] = this.keys.lock(grant.key());
					keysAndArgs[slot.size() + 1 + i] = bytes(grant.owner());
				}
				keysAndArgs[slot.size()] = lease;
				List<Object> reply = RedisLockScripts.RENEW.run(connection, slot.size(), keysAndArgs);
				for (int i = 0; i < slot.size(); i++) {
					renewed[slot.get(i)] = ((Number) reply.get(i)).longValue() == 1;
				}
			}
		}
		return renewed;
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		return this.subscription.start(releasedKeys);
	}

	@Override
	public void ping() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.ping();
		}
	}

	@Override
	public void close() {
		this.subscription.stop();
	}

	/**
	 * Group the grants' indexes so that each group fits one script: one group on a standalone
	 * server, one group per hash slot on a cluster (a script may touch only one slot there).
	 */
	private List<List<Integer>> groupBySlot(RedisConnection connection, List<HeldKey> grants) {
		if (!isCluster(connection)) {
			List<Integer> all = new ArrayList<>(grants.size());
			for (int i = 0; i < grants.size(); i++) {
				all.add(i);
			}
			return List.of(all);
		}
		Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
		for (int i = 0; i < grants.size(); i++) {
			int slot = ClusterSlotHashUtil.calculateSlot(this.keys.lockKey(grants.get(i).key()));
			bySlot.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(i);
		}
		return new ArrayList<>(bySlot.values());
	}

	private boolean isCluster(RedisConnection connection) {
		Boolean known = this.cluster;
		if (known == null) {
			known = connection instanceof RedisClusterConnection;
			this.cluster = known;
		}
		return known;
	}

	private static byte[] leaseMillis(Duration duration) {
		// PX refuses 0: a sub-millisecond lease becomes the shortest one Redis can hold.
		return Long.toString(Math.max(1, duration.toMillis())).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] millis(Duration duration) {
		return Long.toString(duration.toMillis()).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;

/**
 * A {@link LockStore} on one Redis deployment: every operation is one script, run by SHA over
 * the application's {@link RedisConnectionFactory} (one round trip each). Used by
 * {@link RedisLockRegistry}, and once per node by {@code RedlockRegistry}.
 */
public final class RedisLockStore implements LocalHandoffStore {

	private static final boolean lettucePresent = ClassUtils.isPresent("io.lettuce.core.RedisFuture",
			RedisLockStore.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockKeys keys;

	private final byte[] fenceRetentionMillis;

	private final StoreConnections connections;

	private final ReleaseSubscription subscription;

	/** Loaded only when enabled: it needs the Lettuce driver. */
	private final ReplicaAcknowledgement replicaAcknowledgement;

	/**
	 * Runs the acquisitions that wait for replicas: {@code WAIT} needs a dedicated connection in
	 * a pipeline, which Spring Data runs synchronously. Its threads end when idle.
	 */
	private final ThreadPoolExecutor replicaWaits;

	private volatile Boolean cluster;

	/** The channel a release that someone waits for is published on; empty to publish nothing. */
	private final byte[] releaseChannel;

	/** A Redlock node's restart delay in milliseconds, or {@code null} for none. */
	private final byte[] restartDelayMillis;

	/**
	 * Create a store on one Redis node that publishes a release someone waits for (pub/sub
	 * waiting).
	 * @param connectionFactory the node's connection factory
	 * @param keyPrefix the prefix of every key
	 * @param fenceRetentionTime how long the last fencing token of a key is kept
	 * @return the store
	 */
	public static RedisLockStore forNode(RedisConnectionFactory connectionFactory, String keyPrefix,
			Duration fenceRetentionTime) {
		return forNode(connectionFactory, keyPrefix, fenceRetentionTime, true);
	}

	/**
	 * Create a store on one Redis node, for {@code RedlockRegistry}.
	 * @param connectionFactory the node's connection factory
	 * @param keyPrefix the prefix of every key
	 * @param fenceRetentionTime how long the last fencing token of a key is kept
	 * @param publishReleases whether a release that someone waits for is published (pub/sub
	 * waiting); without it, waiters poll
	 * @return the store
	 */
	public static RedisLockStore forNode(RedisConnectionFactory connectionFactory, String keyPrefix,
			Duration fenceRetentionTime, boolean publishReleases) {
		return forNode(connectionFactory, keyPrefix, fenceRetentionTime, publishReleases, null);
	}

	/**
	 * Create a store on one Redlock node that, with a restart delay, grants nothing until its
	 * server has run for that long: a node that restarted may have lost locks that are still
	 * held through the other nodes (the delayed restart of the Redlock analysis, enforced by the
	 * node). Needs {@code INFO} to be allowed in scripts.
	 * @param connectionFactory the node's connection factory
	 * @param keyPrefix the prefix of every key
	 * @param fenceRetentionTime how long the last fencing token of a key is kept
	 * @param publishReleases whether a release that someone waits for is published (pub/sub
	 * waiting); without it, waiters poll
	 * @param restartDelay how long the node sits out after it started, at least the longest
	 * lease; {@code null} for no delay
	 * @return the store
	 */
	public static RedisLockStore forNode(RedisConnectionFactory connectionFactory, String keyPrefix,
			Duration fenceRetentionTime, boolean publishReleases, Duration restartDelay) {
		return new RedisLockStore(connectionFactory, new RedisLockKeys(keyPrefix), fenceRetentionTime, 0,
				Duration.ofMillis(1), publishReleases, restartDelay);
	}

	RedisLockStore(RedisConnectionFactory connectionFactory, RedisLockKeys keys, Duration fenceRetentionTime,
			int replicas, Duration replicaTimeout, boolean publishReleases) {
		this(connectionFactory, keys, fenceRetentionTime, replicas, replicaTimeout, publishReleases, null);
	}

	private RedisLockStore(RedisConnectionFactory connectionFactory, RedisLockKeys keys, Duration fenceRetentionTime,
			int replicas, Duration replicaTimeout, boolean publishReleases, Duration restartDelay) {
		this.connectionFactory = connectionFactory;
		this.restartDelayMillis = (restartDelay != null) ? millis(restartDelay) : null;
		this.keys = keys;
		// Without pub/sub waiters poll, and the server may refuse PUBLISH: an empty channel
		// makes the release scripts publish nothing, while waiters still mark that they wait.
		this.releaseChannel = publishReleases ? keys.channel() : new byte[0];
		this.fenceRetentionMillis = leaseMillis(fenceRetentionTime);
		this.connections = new StoreConnections(connectionFactory);
		this.subscription = new ReleaseSubscription(connectionFactory, keys.channel());
		this.replicaAcknowledgement = (replicas > 0) ? new ReplicaAcknowledgement(replicas, replicaTimeout) : null;
		this.replicaWaits = (replicas > 0) ? new ThreadPoolExecutor(0, 2, 10, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), DriverThreads.storeThreads("distlock-replica-wait")) : null;
	}

	@Override
	public boolean isIoThread(Thread thread) {
		return DriverThreads.isDriverThread(thread);
	}

	/**
	 * Return the replica acknowledgement timeout when grants wait for replicas: an acquisition
	 * takes up to that long by design.
	 */
	@Override
	public Duration acquireAllowance() {
		return (this.replicaAcknowledgement != null) ? this.replicaAcknowledgement.timeout() : Duration.ZERO;
	}

	@Override
	public void checkKey(String key) {
		this.keys.lockKey(key);
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner, Duration leaseTime,
			Duration waitTime) {
		return acquire(mode, key, owner, leaseTime, waitTime, "");
	}

	@Override
	public CompletableFuture<Acquisition> tryAcquireReadUnderWrite(String key, String owner, Duration leaseTime,
			String writeOwner) {
		return acquire(LockMode.READ, key, owner, leaseTime, Duration.ZERO, writeOwner);
	}

	private CompletableFuture<Acquisition> acquire(LockMode mode, String key, String owner, Duration leaseTime, Duration waitTime,
			String writeOwner) {
		// Only a read lock's script reads the fifth argument, the caller's own write lock.
		byte[][] args = (mode == LockMode.READ)
				? new byte[][] { bytes(owner), leaseMillis(leaseTime), this.fenceRetentionMillis, millis(waitTime),
						bytes(writeOwner) }
				: new byte[][] { bytes(owner), leaseMillis(leaseTime), this.fenceRetentionMillis, millis(waitTime) };
		LuaScript script;
		byte[][] keysAndArgs;
		switch (mode) {
			case EXCLUSIVE -> {
				if (this.restartDelayMillis != null) {
					script = RedisLockScripts.ACQUIRE_AFTER_RESTART_DELAY;
					args = new byte[][] { args[0], args[1], args[2], args[3], this.restartDelayMillis };
					keysAndArgs = keysAndArgs(args, this.keys.lock(key), this.keys.fence(key),
							this.keys.waiting(key));
				}
				else {
					script = RedisLockScripts.ACQUIRE;
					keysAndArgs = keysAndArgs(args, this.keys.lock(key), this.keys.fence(key),
							this.keys.waiting(key));
				}
			}
			case FAIR -> {
				script = RedisLockScripts.FAIR_ACQUIRE;
				keysAndArgs = keysAndArgs(args, this.keys.lock(key), this.keys.fence(key), this.keys.waiting(key),
						this.keys.queue(key), this.keys.queueDeadlines(key));
			}
			case WRITE -> {
				script = RedisLockScripts.WRITE_ACQUIRE;
				keysAndArgs = keysAndArgs(args, readWriteKeys(key));
			}
			default -> {
				script = RedisLockScripts.READ_ACQUIRE;
				keysAndArgs = keysAndArgs(args, readWriteKeys(key));
			}
		}
		int numKeys = keysAndArgs.length - args.length;
		CompletableFuture<Long> reply;
		if (this.replicaAcknowledgement != null) {
			reply = CompletableFuture.supplyAsync(() -> {
				try (RedisConnection connection = this.connectionFactory.getConnection()) {
					return this.replicaAcknowledgement.acquire(connection, script, numKeys, keysAndArgs, key);
				}
			}, this.replicaWaits);
		}
		else {
			reply = call((connection) -> script.run(connection, numKeys, keysAndArgs));
		}
		return reply.thenApply((answer) -> {
			if (answer == null) {
				throw new IllegalStateException("No reply from the " + mode + " acquire script");
			}
			return RedisLockScripts.isToken(answer) ? Acquisition.granted(answer)
					: Acquisition.taken(RedisLockScripts.holderTtl(answer));
		});
	}

	@Override
	public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
		if (mode == LockMode.EXCLUSIVE) {
			// One release script for every exclusive lock, handed over or not.
			return releaseExclusive(key, owner, 0).thenApply((released) -> released != Release.NOT_HELD);
		}
		byte[][] args = { bytes(owner), this.releaseChannel, bytes(key) };
		CompletableFuture<Long> released = call((connection) -> switch (mode) {
			case EXCLUSIVE -> throw new IllegalStateException("Exclusive locks are released above");
			case FAIR -> RedisLockScripts.FAIR_RELEASE.run(connection, 4, keysAndArgs(args, this.keys.lock(key),
					this.keys.waiting(key), this.keys.queue(key), this.keys.queueDeadlines(key)));
			case WRITE -> RedisLockScripts.RELEASE.run(connection, 2,
					keysAndArgs(args, this.keys.write(key), this.keys.waiting(key)));
			case READ -> RedisLockScripts.READ_RELEASE.run(connection, 2,
					keysAndArgs(args, this.keys.readers(key), this.keys.waiting(key)));
		});
		return released.thenApply((count) -> count != null && count != 0L);
	}

	@Override
	public CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken) {
		byte[] lockKey = this.keys.lock(key);
		byte[] waitingKey = this.keys.waiting(key);
		CompletableFuture<Long> released;
		if (lastToken == 0) {
			// Never handed over: no local token to record, so the fence key is not even named.
			byte[][] keysAndArgs = { lockKey, waitingKey, bytes(owner), this.releaseChannel, bytes(key) };
			released = call((connection) -> RedisLockScripts.RELEASE.run(connection, 2, keysAndArgs));
		}
		else {
			byte[][] keysAndArgs = keysAndArgs(
					new byte[][] { bytes(owner), this.releaseChannel, bytes(key), bytes(Long.toString(lastToken)),
							this.fenceRetentionMillis },
					lockKey, waitingKey, this.keys.fence(key));
			released = call((connection) -> RedisLockScripts.RELEASE_EXCLUSIVE.run(connection, 3, keysAndArgs));
		}
		return released.thenApply((count) -> {
			if (count == null || count == 0L) {
				return Release.NOT_HELD;
			}
			return (count == 2L) ? Release.RELEASED_AWAITED : Release.RELEASED;
		});
	}

	@Override
	public CompletableFuture<Checkpoint> keepUnlessAwaited(String key, String owner, long lastToken,
			Duration leaseTime) {
		byte[][] keysAndArgs = keysAndArgs(
				new byte[][] { bytes(owner), this.releaseChannel, bytes(key), bytes(Long.toString(lastToken)),
						this.fenceRetentionMillis, leaseMillis(leaseTime) },
				this.keys.lock(key), this.keys.waiting(key), this.keys.fence(key));
		CompletableFuture<Long> reply = call(
				(connection) -> RedisLockScripts.KEEP_UNLESS_AWAITED.run(connection, 3, keysAndArgs));
		return reply.thenApply((answer) -> {
			if (answer == null) {
				throw new IllegalStateException("No reply from the keep-unless-awaited script");
			}
			if (RedisLockScripts.isToken(answer)) {
				return new Checkpoint(Release.KEPT, answer);
			}
			if (answer == RedisLockScripts.RELEASED_AWAITED) {
				return new Checkpoint(Release.RELEASED_AWAITED, 0);
			}
			if (answer == RedisLockScripts.NOT_HELD) {
				return new Checkpoint(Release.NOT_HELD, 0);
			}
			throw new IllegalStateException("Unexpected reply from the keep-unless-awaited script: " + answer);
		});
	}

	@Override
	public CompletableFuture<Boolean> keepExclusive(String key, String owner, long lastToken, Duration keepTime) {
		byte[][] keysAndArgs = keysAndArgs(new byte[][] { bytes(owner), bytes(Long.toString(lastToken)),
				this.fenceRetentionMillis, leaseMillis(keepTime) }, this.keys.lock(key), this.keys.fence(key));
		CompletableFuture<Long> kept = call(
				(connection) -> RedisLockScripts.KEEP_EXCLUSIVE.run(connection, 2, keysAndArgs));
		return kept.thenApply((answer) -> answer != null && answer == 1L);
	}

	@Override
	public CompletableFuture<Boolean> isHeld(HeldKey grant) {
		// Readers are scored with the server's clock: the script compares with it, not with ours.
		byte[] readers = bytes((grant.mode() == LockMode.READ) ? "1" : "0");
		CompletableFuture<Long> held = call((connection) -> RedisLockScripts.IS_HELD.run(connection, 1,
				heldKeyName(grant), bytes(grant.owner()), readers));
		return held.thenApply((answer) -> answer != null && answer == 1L);
	}

	@Override
	public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
		boolean[] renewed = new boolean[grants.size()];
		byte[] lease = leaseMillis(leaseTime);
		return call((connection) -> {
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
				LuaScript script = readers ? RedisLockScripts.READ_RENEW : RedisLockScripts.RENEW;
				CompletableFuture<List<Object>> reply = script.run(connection, group.size(), keysAndArgs);
				scripts.add(reply.thenAccept((answer) -> {
					for (int i = 0; i < group.size(); i++) {
						renewed[group.get(i)] = ((Number) answer.get(i)).longValue() == 1;
					}
				}));
			}
			return CompletableFuture.allOf(scripts.toArray(CompletableFuture[]::new)).thenApply((done) -> renewed);
		});
	}

	private <T> CompletableFuture<T> call(Function<RedisConnection, CompletableFuture<T>> requests) {
		return this.connections.call(requests);
	}

	private byte[][] readWriteKeys(String key) {
		return new byte[][] { this.keys.write(key), this.keys.readers(key), this.keys.fence(key),
				this.keys.waiting(key), this.keys.writerWaiting(key) };
	}

	/**
	 * Return the Redis key that holds a grant: the lock, the write lock, or the readers set.
	 */
	private byte[] heldKeyName(HeldKey grant) {
		return switch (grant.mode()) {
			case EXCLUSIVE, FAIR -> this.keys.lock(grant.key());
			case WRITE -> this.keys.write(grant.key());
			case READ -> this.keys.readers(grant.key());
		};
	}

	private static byte[][] keysAndArgs(byte[][] args, byte[]... keys) {
		byte[][] all = new byte[keys.length + args.length][];
		System.arraycopy(keys, 0, all, 0, keys.length);
		System.arraycopy(args, 0, all, keys.length, args.length);
		return all;
	}

	/**
	 * Extend exclusive grants, and re-create one whose key is missing (the node restarted empty
	 * while the lock was held), never one that another owner holds. For Redlock, where a grant
	 * counts while a quorum of nodes hold it. A re-created key heals a node for the next
	 * renewal but does not count now: while it was missing, another client could have formed a
	 * quorum with that node, so a grant missing on a quorum of nodes is lost, not renewed.
	 * @param grants the exclusive grants
	 * @param leaseTime the new lease of each grant
	 * @return for each grant, whether this node still held it (and now holds it for the lease)
	 */
	public CompletableFuture<boolean[]> renewOrRecreate(List<HeldKey> grants, Duration leaseTime) {
		byte[][] keysAndArgs = new byte[grants.size() * 2 + 1][];
		for (int i = 0; i < grants.size(); i++) {
			keysAndArgs[i] = this.keys.lock(grants.get(i).key());
			keysAndArgs[grants.size() + 1 + i] = bytes(grants.get(i).owner());
		}
		keysAndArgs[grants.size()] = leaseMillis(leaseTime);
		CompletableFuture<List<Object>> reply = call(
				(connection) -> RedisLockScripts.RENEW_OR_RECREATE.run(connection, grants.size(), keysAndArgs));
		return reply.thenApply((answer) -> {
			boolean[] renewed = new boolean[grants.size()];
			for (int i = 0; i < grants.size(); i++) {
				renewed[i] = ((Number) answer.get(i)).longValue() == 1;
			}
			return renewed;
		});
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		return this.subscription.start(releasedKeys);
	}

	/**
	 * Connect and load every script now, so that a first operation under a short timeout does
	 * not pay for either.
	 */
	public void warmUp() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (LuaScript script : RedisLockScripts.ALL) {
				script.load(connection);
			}
		}
	}

	/**
	 * Return how much longer a node sits out a restart delay, as its acquire script counts it:
	 * {@code uptime_in_seconds} may read up to a second high, so a second is taken off.
	 * @param uptime the node's uptime as {@link #uptime()} reads it
	 * @param restartDelay the restart delay
	 * @return the time left, zero or negative when the node votes
	 */
	public static Duration restartDelayLeft(Duration uptime, Duration restartDelay) {
		return restartDelay.minus(uptime.minusSeconds(1));
	}

	/**
	 * Return how long ago the node's server started ({@code uptime_in_seconds} of
	 * {@code INFO server}). Blocking; called once, when a Redlock registry starts, which with a
	 * restart delay says which nodes still sit it out.
	 * @return the uptime, or empty when the node does not tell it ({@code INFO} refused or renamed)
	 * @throws RuntimeException the driver's exception if the node fails otherwise
	 */
	public Optional<Duration> uptime() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Properties server = connection.serverCommands().info("server");
			String seconds = (server != null) ? server.getProperty("uptime_in_seconds") : null;
			return (seconds != null) ? Optional.of(Duration.ofSeconds(Long.parseLong(seconds.trim()))) : Optional.empty();
		}
		catch (RuntimeException ex) {
			if (CommandRefusal.of(ex) != null) {
				// INFO refused or renamed: the registry refuses a restart delay on such a node.
				return Optional.empty();
			}
			throw ex;
		}
	}

	/**
	 * Return the node's replication id ({@code master_replid} of {@code INFO replication}): a
	 * master and its replicas in sync share it, and two addresses of one server answer the same,
	 * while independent servers each have their own. Blocking; called once, when a Redlock
	 * registry checks that its nodes are independent.
	 * @return the replication id, or empty when the node does not tell it (a cluster, or
	 * {@code INFO} refused)
	 */
	public Optional<String> replicationId() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection) {
				return Optional.empty();
			}
			Properties replication = connection.serverCommands().info("replication");
			// A server that reports no real id (blank, or all zeros) tells nothing.
			return Optional.ofNullable((replication != null) ? replication.getProperty("master_replid") : null)
				.filter((id) -> !id.isBlank() && !id.chars().allMatch((c) -> c == '0'));
		}
		catch (RuntimeException ex) {
			return Optional.empty();
		}
	}

	@Override
	public CompletableFuture<Void> ping() {
		return call((connection) -> {
			if (lettucePresent && LettuceAsyncCall.supports(connection)) {
				return LettuceAsyncCall.ping(connection);
			}
			connection.ping();
			return CompletableFuture.completedFuture(null);
		});
	}

	@Override
	public void close() {
		this.subscription.close();
		this.connections.close();
		if (this.replicaWaits != null) {
			this.replicaWaits.shutdown();
		}
	}

	/**
	 * Group the grants' indexes so that each group fits one script: readers apart from the
	 * others (two scripts), and on a cluster one group per hash slot (a script may touch only one
	 * slot there).
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

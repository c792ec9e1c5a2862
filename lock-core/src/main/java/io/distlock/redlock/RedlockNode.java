package io.distlock.redlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

import io.distlock.redis.CommandRefusal;
import io.distlock.redis.ExclusiveScripts;
import io.distlock.redis.LockTokens;
import io.distlock.redis.LuaScript;
import io.distlock.redis.RedisLockKeys;
import io.distlock.redis.RedisLockStore;
import io.distlock.redis.StoreConnections;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore.Acquisition;
import io.distlock.store.LockStore.HeldKey;

import static io.distlock.redis.ScriptArguments.bytes;
import static io.distlock.redis.ScriptArguments.leaseMillis;
import static io.distlock.redis.ScriptArguments.millis;

/**
 * One independent Redis node of a Redlock registry, exclusive locks only: the plain operations
 * of a {@link RedisLockStore} on the node, and what only Redlock asks of a node: an acquisition
 * that, with a restart delay, grants nothing until the node's server has run for that long; a
 * renewal that re-creates a key the node lost; and, once at startup, a warm-up and the node's
 * uptime and replication id.
 */
final class RedlockNode implements AutoCloseable {

	/**
	 * {@code ExclusiveScripts}' acquire on a node that must sit out a restart delay: a node that
	 * started less than the delay ago grants nothing, whatever it restarted with (no persistence,
	 * an RDB snapshot, an append-only file missing its last second), as it may have lost locks
	 * that are still held through the other nodes until the longest lease has run out. A refusal
	 * answers {@code -2 - time left}, as a lock taken for that long would. The server's uptime is
	 * read with {@code INFO server} in whole seconds, the difference of two clock readings rounded
	 * down, so it may be up to a second more than the real one: a second is taken off, and the
	 * node sits out up to two seconds longer, never shorter.
	 * <p>
	 * KEYS: lock, fence, waiting. ARGV: owner, lease ms, fence retention ms, wait ms, restart
	 * delay ms. Returns the token, or {@code -2 - holder pttl} (or the time left).
	 */
	static final LuaScript ACQUIRE_AFTER_RESTART_DELAY = ExclusiveScripts.acquireGuardedBy(
			"acquire-after-restart-delay", """
					local uptime = tonumber(string.match(redis.call('info', 'server'), 'uptime_in_seconds:(%d+)'))
					local left = tonumber(ARGV[5]) - (uptime - 1) * 1000
					if left > 0 then
					  return -2 - left
					end
					""");

	/**
	 * Extend every listed lock its owner holds, and re-create a missing one (a node that
	 * restarted empty); never touch a lock another owner holds.
	 * <p>
	 * KEYS: locks. ARGV: lease ms, then one owner per key. Returns per key 1 (extended), 2
	 * (missing, re-created) or 0 (another owner's).
	 */
	static final LuaScript RENEW_OR_RECREATE = new LuaScript("renew-or-recreate", """
			local renewed = {}
			for i = 1, #KEYS do
			  local owner = redis.call('get', KEYS[i])
			  if owner == ARGV[i + 1] then
			    redis.call('pexpire', KEYS[i], ARGV[1])
			    renewed[i] = 1
			  elseif not owner then
			    redis.call('set', KEYS[i], ARGV[i + 1], 'PX', ARGV[1])
			    renewed[i] = 2
			  else
			    renewed[i] = 0
			  end
			end
			return renewed
			""", ReturnType.MULTI);

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockStore store;

	private final RedisLockKeys keys;

	private final StoreConnections connections;

	private final Duration fenceRetentionTime;

	/** How long the node sits out after its server started, or {@code null} for no delay. */
	private final Duration restartDelay;

	/**
	 * Create a node.
	 * @param connectionFactory the node's connection factory
	 * @param keyPrefix the prefix of every key
	 * @param fenceRetentionTime how long the last fencing token of a key is kept
	 * @param publishReleases whether a release that someone waits for is published (pub/sub
	 * waiting); without it, waiters poll
	 * @param restartDelay how long the node sits out after it started, at least the longest
	 * lease; {@code null} for no delay. Needs {@code INFO} to be allowed in scripts.
	 */
	RedlockNode(RedisConnectionFactory connectionFactory, String keyPrefix, Duration fenceRetentionTime,
			boolean publishReleases, Duration restartDelay) {
		this.connectionFactory = connectionFactory;
		this.store = RedisLockStore.forNode(connectionFactory, keyPrefix, fenceRetentionTime, publishReleases);
		this.keys = new RedisLockKeys(keyPrefix);
		this.connections = new StoreConnections(connectionFactory);
		this.fenceRetentionTime = fenceRetentionTime;
		this.restartDelay = restartDelay;
	}

	void checkKey(String key) {
		this.store.checkKey(key);
	}

	CompletableFuture<Acquisition> tryAcquire(String key, String owner, Duration leaseTime, Duration waitTime) {
		if (this.restartDelay == null) {
			return this.store.tryAcquire(LockMode.EXCLUSIVE, key, owner, leaseTime, waitTime);
		}
		byte[][] keysAndArgs = { this.keys.lock(key), this.keys.fence(key), this.keys.waiting(key), bytes(owner),
				leaseMillis(leaseTime), leaseMillis(this.fenceRetentionTime), millis(waitTime),
				millis(this.restartDelay) };
		CompletableFuture<Long> reply = this.connections
			.call((connection) -> ACQUIRE_AFTER_RESTART_DELAY.run(connection, 3, keysAndArgs));
		return reply.thenApply((answer) -> {
			if (answer == null) {
				throw new IllegalStateException("No reply from the " + ACQUIRE_AFTER_RESTART_DELAY.name() + " script");
			}
			return LockTokens.acquisition(answer);
		});
	}

	CompletableFuture<Boolean> release(String key, String owner) {
		return this.store.release(LockMode.EXCLUSIVE, key, owner);
	}

	/**
	 * Extend exclusive grants, and re-create one whose key is missing (the node restarted empty
	 * while the lock was held), never one that another owner holds. A grant counts while a
	 * quorum of nodes hold it; a re-created key heals a node for the next renewal but does not
	 * count now: while it was missing, another client could have formed a quorum with that node,
	 * so a grant missing on a quorum of nodes is lost, not renewed.
	 * @param grants the exclusive grants
	 * @param leaseTime the new lease of each grant
	 * @return for each grant, whether this node still held it (and now holds it for the lease)
	 */
	CompletableFuture<boolean[]> renewOrRecreate(List<HeldKey> grants, Duration leaseTime) {
		byte[][] keysAndArgs = new byte[grants.size() * 2 + 1][];
		for (int i = 0; i < grants.size(); i++) {
			keysAndArgs[i] = this.keys.lock(grants.get(i).key());
			keysAndArgs[grants.size() + 1 + i] = bytes(grants.get(i).owner());
		}
		keysAndArgs[grants.size()] = leaseMillis(leaseTime);
		CompletableFuture<List<Object>> reply = this.connections
			.call((connection) -> RENEW_OR_RECREATE.run(connection, grants.size(), keysAndArgs));
		return reply.thenApply((answer) -> {
			boolean[] renewed = new boolean[grants.size()];
			for (int i = 0; i < grants.size(); i++) {
				renewed[i] = ((Number) answer.get(i)).longValue() == 1;
			}
			return renewed;
		});
	}

	/**
	 * Extend a grant only where the node still holds it, never re-creating it.
	 */
	CompletableFuture<Boolean> extend(HeldKey grant, Duration leaseTime) {
		return this.store.extend(grant, leaseTime);
	}

	CompletableFuture<Boolean> isHeld(HeldKey grant) {
		return this.store.isHeld(grant);
	}

	boolean listen(Consumer<String> releasedKeys) {
		return this.store.listen(releasedKeys);
	}

	CompletableFuture<Void> ping() {
		return this.store.ping();
	}

	/**
	 * Connect and load every script a node runs now, so that a first operation under a short
	 * timeout does not pay for either. Blocking.
	 */
	void warmUp() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (LuaScript script : ExclusiveScripts.scripts()) {
				script.load(connection);
			}
			ACQUIRE_AFTER_RESTART_DELAY.load(connection);
			RENEW_OR_RECREATE.load(connection);
		}
	}

	/**
	 * Return how much longer a node sits out a restart delay, as its acquire script counts it:
	 * {@code uptime_in_seconds} may read up to a second high, so a second is taken off.
	 * @param uptime the node's uptime as {@link #uptime()} reads it
	 * @param restartDelay the restart delay
	 * @return the time left, zero or negative when the node votes
	 */
	static Duration restartDelayLeft(Duration uptime, Duration restartDelay) {
		return restartDelay.minus(uptime.minusSeconds(1));
	}

	/**
	 * Return how long ago the node's server started ({@code uptime_in_seconds} of
	 * {@code INFO server}). Blocking; called once, when a Redlock registry starts, which with a
	 * restart delay says which nodes still sit it out.
	 * @return the uptime, or empty when the node does not tell it ({@code INFO} refused or renamed)
	 * @throws RuntimeException the driver's exception if the node fails otherwise
	 */
	Optional<Duration> uptime() {
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
	Optional<String> replicationId() {
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
	public void close() {
		this.store.close();
		this.connections.close();
	}

}

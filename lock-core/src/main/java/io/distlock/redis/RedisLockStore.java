package io.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;

import static io.distlock.redis.ScriptArguments.bytes;
import static io.distlock.redis.ScriptArguments.keysAndArgs;
import static io.distlock.redis.ScriptArguments.leaseMillis;
import static io.distlock.redis.ScriptArguments.millis;

/**
 * A {@link LockStore} on one Redis deployment: every operation is one script, run by SHA over
 * the application's {@link RedisConnectionFactory} (one round trip each). Used by
 * {@link RedisLockRegistry}, and for the plain operations of each node of a
 * {@code RedlockRegistry}.
 */
public final class RedisLockStore implements LocalHandoffStore {

	private static final boolean lettucePresent = ClassUtils.isPresent("io.lettuce.core.RedisFuture",
			RedisLockStore.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockKeys keys;

	private final byte[] fenceRetentionMillis;

	private final StoreConnections connections;

	private final ReleaseSubscription subscription;

	private final RenewalBatches renewals;

	/** Loaded only when enabled: it needs the Lettuce driver. */
	private final ReplicaAcknowledgement replicaAcknowledgement;

	/** The channel a release that someone waits for is published on; empty to publish nothing. */
	private final byte[] releaseChannel;

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
	 * Create a store on one Redis node.
	 * @param connectionFactory the node's connection factory
	 * @param keyPrefix the prefix of every key
	 * @param fenceRetentionTime how long the last fencing token of a key is kept
	 * @param publishReleases whether a release that someone waits for is published (pub/sub
	 * waiting); without it, waiters poll
	 * @return the store
	 */
	public static RedisLockStore forNode(RedisConnectionFactory connectionFactory, String keyPrefix,
			Duration fenceRetentionTime, boolean publishReleases) {
		return new RedisLockStore(connectionFactory, new RedisLockKeys(keyPrefix), fenceRetentionTime, 0,
				Duration.ofMillis(1), publishReleases);
	}

	RedisLockStore(RedisConnectionFactory connectionFactory, RedisLockKeys keys, Duration fenceRetentionTime,
			int replicas, Duration replicaTimeout, boolean publishReleases) {
		this.connectionFactory = connectionFactory;
		this.keys = keys;
		// Without pub/sub waiters poll, and the server may refuse PUBLISH: an empty channel
		// makes the release scripts publish nothing, while waiters still mark that they wait.
		this.releaseChannel = publishReleases ? keys.channel() : new byte[0];
		this.fenceRetentionMillis = leaseMillis(fenceRetentionTime);
		this.connections = new StoreConnections(connectionFactory);
		this.subscription = new ReleaseSubscription(connectionFactory, keys.channel());
		this.renewals = new RenewalBatches(keys);
		this.replicaAcknowledgement = (replicas > 0) ? new ReplicaAcknowledgement(replicas, replicaTimeout) : null;
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
				script = ExclusiveScripts.ACQUIRE;
				keysAndArgs = keysAndArgs(args, this.keys.lock(key), this.keys.fence(key), this.keys.waiting(key));
			}
			case FAIR -> {
				script = FairScripts.FAIR_ACQUIRE;
				keysAndArgs = keysAndArgs(args, this.keys.lock(key), this.keys.fence(key), this.keys.waiting(key),
						this.keys.queue(key), this.keys.queueDeadlines(key));
			}
			case WRITE -> {
				script = ReadWriteScripts.WRITE_ACQUIRE;
				keysAndArgs = keysAndArgs(args, readWriteKeys(key));
			}
			default -> {
				script = ReadWriteScripts.READ_ACQUIRE;
				keysAndArgs = keysAndArgs(args, readWriteKeys(key));
			}
		}
		int numKeys = keysAndArgs.length - args.length;
		CompletableFuture<Long> reply = (this.replicaAcknowledgement != null)
				? this.replicaAcknowledgement.acquire(this.connectionFactory, script, numKeys, keysAndArgs, key)
				: call((connection) -> script.run(connection, numKeys, keysAndArgs));
		return reply.thenApply((answer) -> {
			if (answer == null) {
				throw new IllegalStateException("No reply from the " + mode + " acquire script");
			}
			return LockTokens.acquisition(answer);
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
			case FAIR -> FairScripts.FAIR_RELEASE.run(connection, 4, keysAndArgs(args, this.keys.lock(key),
					this.keys.waiting(key), this.keys.queue(key), this.keys.queueDeadlines(key)));
			case WRITE -> ExclusiveScripts.RELEASE.run(connection, 2,
					keysAndArgs(args, this.keys.write(key), this.keys.waiting(key)));
			case READ -> ReadWriteScripts.READ_RELEASE.run(connection, 2,
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
			released = call((connection) -> ExclusiveScripts.RELEASE.run(connection, 2, keysAndArgs));
		}
		else {
			byte[][] keysAndArgs = keysAndArgs(
					new byte[][] { bytes(owner), this.releaseChannel, bytes(key), bytes(Long.toString(lastToken)),
							this.fenceRetentionMillis },
					lockKey, waitingKey, this.keys.fence(key));
			released = call((connection) -> HandoffScripts.RELEASE_EXCLUSIVE.run(connection, 3, keysAndArgs));
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
				(connection) -> HandoffScripts.KEEP_UNLESS_AWAITED.run(connection, 3, keysAndArgs));
		return reply.thenApply((answer) -> {
			if (answer == null) {
				throw new IllegalStateException("No reply from the keep-unless-awaited script");
			}
			if (LockTokens.isToken(answer)) {
				return new Checkpoint(Release.KEPT, answer);
			}
			if (answer == HandoffScripts.RELEASED_AWAITED) {
				return new Checkpoint(Release.RELEASED_AWAITED, 0);
			}
			if (answer == HandoffScripts.NOT_HELD) {
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
				(connection) -> HandoffScripts.KEEP_EXCLUSIVE.run(connection, 2, keysAndArgs));
		return kept.thenApply((answer) -> answer != null && answer == 1L);
	}

	@Override
	public CompletableFuture<Boolean> isHeld(HeldKey grant) {
		// Readers are scored with the server's clock: the script compares with it, not with ours.
		byte[] readers = bytes((grant.mode() == LockMode.READ) ? "1" : "0");
		CompletableFuture<Long> held = call((connection) -> ExclusiveScripts.IS_HELD.run(connection, 1,
				this.renewals.heldKeyName(grant), bytes(grant.owner()), readers));
		return held.thenApply((answer) -> answer != null && answer == 1L);
	}

	@Override
	public CompletableFuture<boolean[]> renew(List<HeldKey> grants, Duration leaseTime) {
		return call((connection) -> this.renewals.renew(connection, grants, leaseTime));
	}

	@Override
	public boolean listen(Consumer<String> releasedKeys) {
		return this.subscription.start(releasedKeys);
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
		if (this.replicaAcknowledgement != null) {
			this.replicaAcknowledgement.close();
		}
	}

	private <T> CompletableFuture<T> call(Function<RedisConnection, CompletableFuture<T>> requests) {
		return this.connections.call(requests);
	}

	private byte[][] readWriteKeys(String key) {
		return new byte[][] { this.keys.write(key), this.keys.readers(key), this.keys.fence(key),
				this.keys.waiting(key), this.keys.writerWaiting(key) };
	}

}

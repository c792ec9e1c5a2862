package io.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockReplicationException;

/**
 * Makes a grant count only once enough replicas acknowledge it: the acquire script and
 * {@code WAIT} run in one pipeline, which Spring Data runs on a dedicated connection.
 * {@code WAIT} blocks its connection and counts that connection's writes, so it must neither
 * stall the shared connection nor count other clients' writes. Needs the Lettuce driver.
 */
final class ReplicaAcknowledgement implements AutoCloseable {

	private final int replicas;

	private final Duration timeout;

	/**
	 * Runs the acquisitions that wait for replicas: Spring Data runs a pipeline synchronously.
	 * Its threads end when idle.
	 */
	private final ThreadPoolExecutor waits = new ThreadPoolExecutor(0, 2, 10, TimeUnit.SECONDS,
			new LinkedBlockingQueue<>(), DriverThreads.storeThreads("distlock-replica-wait"));

	ReplicaAcknowledgement(int replicas, Duration timeout) {
		this.replicas = replicas;
		this.timeout = timeout;
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Run an acquire script on a dedicated connection, on a thread of this acknowledgement's own,
	 * and wait there for its grant to reach the replicas.
	 * @return the script's answer: a token if granted, see {@link LockTokens}; exceptionally
	 * {@link LockReplicationException} if fewer replicas than required acknowledged a grant
	 */
	CompletableFuture<Long> acquire(RedisConnectionFactory connectionFactory, LuaScript script, int numKeys,
			byte[][] keysAndArgs, String key) {
		return CompletableFuture.supplyAsync(() -> {
			try (RedisConnection connection = connectionFactory.getConnection()) {
				return acquire(connection, script, numKeys, keysAndArgs, key);
			}
		}, this.waits);
	}

	/**
	 * Run an acquire script and wait for its grant to reach the replicas.
	 * @return the script's answer: a token if granted, see {@link LockTokens}
	 * @throws LockReplicationException if fewer replicas than required acknowledged a grant
	 */
	private Long acquire(RedisConnection connection, LuaScript script, int numKeys, byte[][] keysAndArgs,
			String key) {
		connection.openPipeline();
		script.runInPipeline(connection, numKeys, keysAndArgs);
		// In a pipeline the native connection is the dedicated one the script went to.
		if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
			connection.closePipeline();
			throw new LockConfigurationException("Replica acknowledgement needs the Lettuce driver");
		}
		RedisFuture<Long> acknowledgements = commands.waitForReplication(this.replicas, this.timeout.toMillis());
		Long reply = (Long) connection.closePipeline().get(0);
		long acknowledged;
		try {
			acknowledged = acknowledgements.get(this.timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockReplicationException(
					"Interrupted while waiting for replicas to acknowledge lock for key '" + key + "'");
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new LockReplicationException("Replicas did not answer for lock for key '" + key + "': " + ex);
		}
		if (reply != null && LockTokens.isToken(reply) && acknowledged < this.replicas) {
			throw new LockReplicationException("Lock for key '" + key + "' was acknowledged by " + acknowledged
					+ " of " + this.replicas + " required replicas within " + this.timeout.toMillis()
					+ "ms; a failover could lose it");
		}
		return reply;
	}

	@Override
	public void close() {
		this.waits.shutdown();
	}

}

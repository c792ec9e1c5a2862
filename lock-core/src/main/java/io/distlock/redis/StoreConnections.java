package io.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The connections the lock store sends its scripts on.
 * <p>
 * On a {@link LettuceConnectionFactory} that shares its native connection (Spring Boot's
 * default), every connection the factory hands out wraps the same multiplexed Lettuce
 * connection, yet creating one is not free: it allocates a wrapper and looks up a logger, twice
 * per grant, on the caller's thread. So one of them is kept and used by every call while its
 * native connection is open; a closed one (the factory was stopped or reset) is replaced by a
 * fresh one from the factory. A reconnecting native connection counts as closed, so while Redis
 * is down each call asks the factory, as every call does on any other factory (a pooled or Jedis
 * one), where each call takes its own connection and closes it once answered.
 */
public final class StoreConnections implements AutoCloseable {

	private static final boolean lettucePresent = ClassUtils.isPresent("io.lettuce.core.RedisFuture",
			StoreConnections.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final boolean shared;

	private volatile RedisConnection kept;

	private volatile boolean closed;

	/**
	 * Create the connections of a store on a connection factory.
	 * @param connectionFactory the factory
	 */
	public StoreConnections(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.shared = lettucePresent && connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getShareNativeConnection();
	}

	/**
	 * Send requests on a connection and return their answer. A connection of its own is closed
	 * once the requests are answered (with a pooled one it goes back to the pool only when no
	 * request on it is still in flight); the kept one stays open.
	 * @param <T> the answer's type
	 * @param requests sends the requests on the connection it is given, without blocking
	 * @return the answer
	 */
	public <T> CompletableFuture<T> call(Function<RedisConnection, CompletableFuture<T>> requests) {
		RedisConnection keptNow = this.kept;
		if (keptNow != null && LettuceAsyncCall.isOpen(keptNow)) {
			return send(requests, keptNow);
		}
		RedisConnection connection;
		try {
			connection = this.connectionFactory.getConnection();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (keep(connection)) {
			return send(requests, connection);
		}
		return send(requests, connection).whenComplete((reply, failure) -> connection.close());
	}

	/**
	 * Keep a fresh connection for the next calls if it wraps an open shared native connection;
	 * the one it replaces is closed (which frees nothing but the wrapper).
	 */
	private boolean keep(RedisConnection connection) {
		if (!this.shared || this.closed || !LettuceAsyncCall.supports(connection)
				|| !LettuceAsyncCall.isOpen(connection)) {
			return false;
		}
		RedisConnection replaced;
		synchronized (this) {
			if (this.closed) {
				return false;
			}
			replaced = this.kept;
			this.kept = connection;
		}
		if (replaced != null && replaced != connection) {
			replaced.close();
		}
		return true;
	}

	private static <T> CompletableFuture<T> send(Function<RedisConnection, CompletableFuture<T>> requests,
			RedisConnection connection) {
		try {
			return requests.apply(connection);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public void close() {
		RedisConnection keptNow;
		synchronized (this) {
			this.closed = true;
			keptNow = this.kept;
			this.kept = null;
		}
		if (keptNow != null) {
			keptNow.close();
		}
	}

}

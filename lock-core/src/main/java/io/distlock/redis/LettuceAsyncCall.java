package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * Sends a lock script or a {@code PING} on Lettuce's asynchronous API and returns a future of
 * its reply, without waiting: the engine bounds the wait by the caller's own deadline (what is
 * left of a wait time, a validity deadline), never by the driver's command timeout, and no
 * thread waits for Redis at all. Unlike Spring Data's synchronous calls, nothing here looks at
 * the calling thread's interrupt flag, so an interrupted holder's release is still sent. Errors
 * are translated as Spring Data translates them. Loaded only when Lettuce is on the class path.
 */
final class LettuceAsyncCall {

	private static final LettuceExceptionConverter exceptionConverter = new LettuceExceptionConverter();

	private LettuceAsyncCall() {
	}

	/**
	 * Return whether the connection can run a script here: a Lettuce connection that is neither
	 * pipelining nor in a transaction.
	 */
	static boolean supports(RedisConnection connection) {
		return !connection.isPipelined() && !connection.isQueueing()
				&& connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?>;
	}

	/**
	 * Return whether the connection's native Lettuce connection is open: connected, not closed
	 * and not reconnecting.
	 */
	static boolean isOpen(RedisConnection connection) {
		Object commands = connection.getNativeConnection();
		if (commands instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection().isOpen();
		}
		return commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster
				&& cluster.getStatefulConnection().isOpen();
	}

	/**
	 * Send a script by SHA, falling back to its body when the server does not know it.
	 */
	static <T> CompletableFuture<T> run(RedisConnection connection, String sha1, byte[] body, ReturnType returnType,
			int numKeys, byte[]... keysAndArgs) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands(connection);
		byte[][] keys = new byte[numKeys][];
		byte[][] args = new byte[keysAndArgs.length - numKeys][];
		System.arraycopy(keysAndArgs, 0, keys, 0, numKeys);
		System.arraycopy(keysAndArgs, numKeys, args, 0, args.length);
		ScriptOutputType outputType = outputType(returnType);
		// One stage on the reply: a reply by SHA passes straight through, and only a failure
		// (NOSCRIPT: send the body) takes a second call.
		return commands.<T>evalsha(sha1, outputType, keys, args).toCompletableFuture().exceptionallyCompose((failure) -> {
			if (!LuaScript.isNoScript(failure)) {
				return CompletableFuture.failedFuture(translate(failure));
			}
			return commands.<T>eval(new String(body, StandardCharsets.UTF_8), outputType, keys, args)
				.toCompletableFuture()
				.handle(LettuceAsyncCall::translated);
		});
	}

	/**
	 * Send a {@code PING}.
	 */
	static CompletableFuture<Void> ping(RedisConnection connection) {
		return commands(connection).ping().toCompletableFuture().handle((pong, failure) -> {
			translated(pong, failure);
			return null;
		});
	}

	@SuppressWarnings("unchecked")
	private static RedisClusterAsyncCommands<byte[], byte[]> commands(RedisConnection connection) {
		return (RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
	}

	private static <T> T translated(T reply, Throwable failure) {
		if (failure != null) {
			throw new CompletionException(translate(failure));
		}
		return reply;
	}

	private static RuntimeException translate(Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (cause instanceof Exception exception) {
			RuntimeException translated = exceptionConverter.convert(exception);
			if (translated != null) {
				return translated;
			}
			return (exception instanceof RuntimeException runtime) ? runtime : new IllegalStateException(exception);
		}
		return new IllegalStateException(cause);
	}

	private static ScriptOutputType outputType(ReturnType returnType) {
		return switch (returnType) {
			case BOOLEAN -> ScriptOutputType.BOOLEAN;
			case INTEGER -> ScriptOutputType.INTEGER;
			case MULTI -> ScriptOutputType.MULTI;
			case STATUS -> ScriptOutputType.STATUS;
			case VALUE -> ScriptOutputType.VALUE;
		};
	}

}

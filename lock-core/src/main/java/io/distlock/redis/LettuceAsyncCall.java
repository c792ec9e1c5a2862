package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * Runs a lock script or a {@code PING} on Lettuce's asynchronous API and waits for the reply
 * itself: at most the caller's own bound (what is left of a wait time, a validity deadline),
 * never the driver's command timeout when that is longer, and whatever the calling thread's
 * interrupt flag says. Spring Data's synchronous call waits for the driver's timeout (60s by
 * default) and cancels a command when the waiting thread is interrupted, even one not yet
 * written because the shared connection is busy: an interrupted holder's release then leaves its
 * key for a whole lease. Here an interrupt only marks the thread. Loaded only when Lettuce is on
 * the class path.
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
	 * Run a script by SHA, falling back to its body when the server does not know it.
	 */
	@SuppressWarnings("unchecked")
	static <T> T run(RedisConnection connection, long timeoutMillis, String sha1, byte[] body, ReturnType returnType,
			int numKeys, byte[]... keysAndArgs) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
			.getNativeConnection();
		byte[][] keys = new byte[numKeys][];
		byte[][] args = new byte[keysAndArgs.length - numKeys][];
		System.arraycopy(keysAndArgs, 0, keys, 0, numKeys);
		System.arraycopy(keysAndArgs, numKeys, args, 0, args.length);
		ScriptOutputType outputType = outputType(returnType);
		try {
			return (T) await(commands.evalsha(sha1, outputType, keys, args), timeoutMillis);
		}
		catch (RuntimeException ex) {
			if (!LuaScript.isNoScript(ex)) {
				throw ex;
			}
			return (T) await(commands.eval(new String(body, StandardCharsets.UTF_8), outputType, keys, args),
					timeoutMillis);
		}
	}

	/**
	 * Send a {@code PING} and wait for its reply at most the given time.
	 */
	@SuppressWarnings("unchecked")
	static void ping(RedisConnection connection, long timeoutMillis) {
		await(((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection()).ping(), timeoutMillis);
	}

	private static <T> T await(RedisFuture<T> future, long timeoutMillis) {
		boolean interrupted = false;
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
		try {
			while (true) {
				try {
					return future.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					// Deliberately not cancelled: the command may already be on its way, and the
					// caller must learn its outcome. The flag is restored below.
					interrupted = true;
				}
				catch (ExecutionException ex) {
					Throwable cause = ex.getCause();
					throw (cause instanceof Exception exception) ? exceptionConverter.convert(exception)
							: new IllegalStateException(cause);
				}
				catch (TimeoutException ex) {
					future.cancel(true);
					throw new QueryTimeoutException("Redis did not answer within " + timeoutMillis + "ms", ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
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

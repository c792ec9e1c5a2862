package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.ClassUtils;

/**
 * A Lua script run by its SHA1, loaded with {@code EVAL} only when the server does not know it
 * yet (after a restart or a {@code SCRIPT FLUSH}), so that a steady state sends only the SHA.
 * Public for the stores built on one node's scripts, such as a Redlock node; compile each script
 * once, into a constant.
 */
public final class LuaScript {

	private static final boolean lettucePresent = ClassUtils.isPresent("io.lettuce.core.RedisFuture",
			LuaScript.class.getClassLoader());

	private final String name;

	private final byte[] body;

	private final String sha1;

	private final ReturnType returnType;

	/**
	 * Compile a script.
	 * @param name the script's name, for messages
	 * @param body the Lua
	 * @param returnType how its reply is read
	 */
	public LuaScript(String name, String body, ReturnType returnType) {
		this.name = name;
		this.body = body.getBytes(StandardCharsets.UTF_8);
		this.sha1 = sha1(this.body);
		this.returnType = returnType;
	}

	/**
	 * Return the script's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return the SHA1 the server knows the script by.
	 * @return the SHA1 in hex
	 */
	public String sha1() {
		return this.sha1;
	}

	/**
	 * Send the script and return a future of its reply. On Lettuce nothing waits for the reply
	 * (see {@link LettuceAsyncCall}); another driver has no asynchronous scripting API, so the
	 * script runs on the calling thread and the future is complete when this returns.
	 * @param connection the connection
	 * @param numKeys how many of {@code keysAndArgs} are keys
	 * @param keysAndArgs the keys, then the arguments
	 * @param <T> the reply's type
	 * @return the reply
	 */
	public <T> CompletableFuture<T> run(RedisConnection connection, int numKeys, byte[]... keysAndArgs) {
		if (lettucePresent && LettuceAsyncCall.supports(connection)) {
			return LettuceAsyncCall.run(connection, this.sha1, this.body, this.returnType, numKeys, keysAndArgs);
		}
		try {
			return CompletableFuture.completedFuture(runBlocking(connection, numKeys, keysAndArgs));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Run the script on the calling thread through Spring Data's synchronous API.
	 */
	<T> T runBlocking(RedisConnection connection, int numKeys, byte[]... keysAndArgs) {
		try {
			return connection.scriptingCommands().evalSha(this.sha1, this.returnType, numKeys, keysAndArgs);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			// EVAL also caches the script on the server: the next call goes by SHA again.
			return connection.scriptingCommands().eval(this.body, this.returnType, numKeys, keysAndArgs);
		}
	}

	/**
	 * Load the script on the server ahead of its first use.
	 * @param connection the connection
	 */
	public void load(RedisConnection connection) {
		connection.scriptingCommands().scriptLoad(this.body);
	}

	/**
	 * Queue the script with its full body in an open pipeline: a pipeline cannot fall back on
	 * {@code NOSCRIPT}, so it does not go by SHA.
	 */
	void runInPipeline(RedisConnection connection, int numKeys, byte[]... keysAndArgs) {
		connection.scriptingCommands().eval(this.body, this.returnType, numKeys, keysAndArgs);
	}

	static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	private static String sha1(byte[] body) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
		}
	}

}

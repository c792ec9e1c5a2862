package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The arguments of a script call as Redis reads them: durations as whole milliseconds, strings
 * as UTF-8, and the keys before the other arguments in one array. Public for the stores built on
 * one node's scripts, such as a Redlock node.
 */
public final class ScriptArguments {

	private ScriptArguments() {
	}

	/**
	 * Return the keys followed by the arguments, as a script call takes them.
	 * @param args the arguments
	 * @param keys the keys
	 * @return the keys, then the arguments
	 */
	public static byte[][] keysAndArgs(byte[][] args, byte[]... keys) {
		byte[][] all = new byte[keys.length + args.length][];
		System.arraycopy(keys, 0, all, 0, keys.length);
		System.arraycopy(args, 0, all, keys.length, args.length);
		return all;
	}

	/**
	 * Return a lease in whole milliseconds, at least one.
	 * @param duration the lease
	 * @return the milliseconds, as ASCII
	 */
	public static byte[] leaseMillis(Duration duration) {
		// PX refuses 0: a sub-millisecond lease becomes the shortest one Redis can hold.
		return Long.toString(Math.max(1, duration.toMillis())).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * Return a duration in whole milliseconds.
	 * @param duration the duration
	 * @return the milliseconds, as ASCII
	 */
	public static byte[] millis(Duration duration) {
		return Long.toString(duration.toMillis()).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * Return a string as UTF-8.
	 * @param value the string
	 * @return the bytes
	 */
	public static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

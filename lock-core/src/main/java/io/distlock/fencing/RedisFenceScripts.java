package io.distlock.fencing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The scripts of the fenced Redis reads and writes, their keys and arguments, and what their
 * replies mean: one place for {@link RedisFencing} and {@link ReactiveRedisFencing}.
 */
final class RedisFenceScripts {

	/** Sets a string if the token is not older than the recorded one; answers -1, or the newer token. */
	static final RedisScript<Long> SET = RedisScript.of("""
			local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
			if stored > tonumber(ARGV[1]) then
				return stored
			end
			redis.call('SET', KEYS[2], ARGV[1])
			redis.call('SET', KEYS[1], ARGV[2])
			return -1
			""", Long.class);

	/** Sets hash fields if the token is not older than the recorded one; answers as {@link #SET}. */
	static final RedisScript<Long> HASH_PUT = RedisScript.of("""
			local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
			if stored > tonumber(ARGV[1]) then
				return stored
			end
			redis.call('SET', KEYS[2], ARGV[1])
			redis.call('HSET', KEYS[1], unpack(ARGV, 2))
			return -1
			""", Long.class);

	/**
	 * Raises the fence to the token if it is not older, and reads the value; answers '=' and the
	 * value, '-' for none, or '!' and the newer token.
	 */
	static final RedisScript<String> GET = RedisScript.of("""
			local stored = redis.call('GET', KEYS[2]) or '0'
			if tonumber(stored) > tonumber(ARGV[1]) then
				return '!' .. stored
			end
			redis.call('SET', KEYS[2], ARGV[1])
			local value = redis.call('GET', KEYS[1])
			if value then
				return '=' .. value
			end
			return '-'
			""", String.class);

	private static final String FENCE_SUFFIX = ":distlock-fence";

	private RedisFenceScripts() {
	}

	/**
	 * Return the keys of a script on the data key: the data key, then its fence key.
	 */
	static List<String> keys(String key) {
		return List.of(key, fenceKey(key));
	}

	/**
	 * Return the arguments of {@link #SET}.
	 */
	static List<String> setArgs(long token, String value) {
		return List.of(Long.toString(token), Objects.requireNonNull(value, "value must not be null"));
	}

	/**
	 * Return the arguments of {@link #HASH_PUT}: the token, then each field and its value.
	 */
	static List<String> hashArgs(long token, Map<String, String> fields) {
		if (fields.isEmpty()) {
			throw new IllegalArgumentException("fields must name at least one field to set");
		}
		List<String> args = new ArrayList<>();
		args.add(Long.toString(token));
		fields.forEach((field, value) -> {
			args.add(field);
			args.add(value);
		});
		return args;
	}

	/**
	 * Return the newer token a write's reply names, or -1 when the write was made.
	 */
	static long newerToken(@Nullable Long reply) {
		return (reply != null) ? reply : -1;
	}

	/**
	 * The reply of {@link #GET}: the value, none, or the newer token that refused the read.
	 * @param value the value, or {@code null}
	 * @param newerToken the newer token, or -1 when the read was made
	 */
	record Read(@Nullable String value, long newerToken) {

		static Read of(String key, @Nullable String reply) {
			if (reply == null || reply.isEmpty()) {
				throw new IllegalStateException("No reply from the fenced read of '" + key + "'");
			}
			return switch (reply.charAt(0)) {
				case '=' -> new Read(reply.substring(1), -1);
				case '-' -> new Read(null, -1);
				case '!' -> new Read(null, Long.parseLong(reply.substring(1)));
				default -> throw new IllegalStateException(
						"Unexpected reply from the fenced read of '" + key + "': " + reply);
			};
		}

	}

	/**
	 * Return the key that records the newest token written to a data key: the data key with a
	 * suffix, in the same Redis Cluster slot (its hash tag, or the whole key as the tag).
	 * @param key the data's key
	 * @return the fence key
	 * @throws IllegalArgumentException for a key without a hash tag that contains a closing
	 * brace, whose slot no other key can be given: give it a hash tag such as {@code {stock}:42}
	 */
	static String fenceKey(String key) {
		Objects.requireNonNull(key, "key must not be null");
		int open = key.indexOf('{');
		int close = (open >= 0) ? key.indexOf('}', open + 1) : -1;
		if (close > open + 1) {
			// The key has a hash tag: any key with the same first tag shares its slot.
			return key + FENCE_SUFFIX;
		}
		if (key.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Cannot fence Redis key '" + key + "': it has a '}' but no hash tag, so"
					+ " no other key shares its cluster slot; give it a hash tag such as '{stock}:42'");
		}
		return "{" + key + "}" + FENCE_SUFFIX;
	}

}

package io.distlock.fencing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.StaleFencingTokenException;

/**
 * Fenced reads and writes of Redis data with Spring Data Redis: each is one script that compares
 * the holder's fencing token with the newest one that read or wrote the key, and goes on
 * (recording the token) only if the holder's is not older; otherwise nothing is read or written
 * and the caller gets {@link StaleFencingTokenException}. The token lives beside the data, in the
 * key {@link #fenceKey(String)}, which shares its cluster slot and has no expiry.
 * <p>
 * The token is the one of the innermost lock the calling thread holds
 * ({@link LockContext#current()}), or a lease passed explicitly. Tokens grow per lock key: fence
 * a Redis key with the tokens of one lock key only. The writes run on the calling thread, through
 * the template's connection, like any other template call.
 */
public final class RedisFencing {

	/** Sets a string if the token is not older than the recorded one; answers -1, or the newer token. */
	private static final RedisScript<Long> SET = RedisScript.of("""
			local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
			if stored > tonumber(ARGV[1]) then
				return stored
			end
			redis.call('SET', KEYS[2], ARGV[1])
			redis.call('SET', KEYS[1], ARGV[2])
			return -1
			""", Long.class);

	/** Sets hash fields if the token is not older than the recorded one; answers as {@link #SET}. */
	private static final RedisScript<Long> HASH_PUT = RedisScript.of("""
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
	private static final RedisScript<String> GET = RedisScript.of("""
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

	private final StringRedisTemplate template;

	private final LockListener listener;

	/**
	 * Create fenced writes through the application's template.
	 * @param template the template the data is written with
	 */
	public RedisFencing(StringRedisTemplate template) {
		this(template, LockListener.NONE);
	}

	private RedisFencing(StringRedisTemplate template, LockListener listener) {
		this.template = Objects.requireNonNull(template, "template must not be null");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	/**
	 * Return a copy that tells the listener of every refused write
	 * ({@link LockListener#onFencingRejected}): the {@code distlock.fencing.rejected} meter.
	 * @param listener the listener
	 * @return the copy
	 */
	public RedisFencing withListener(LockListener listener) {
		return new RedisFencing(this.template, listener);
	}

	/**
	 * Read a string value under the innermost lock the calling thread holds, raising the key's
	 * fence to its token first: a holder that read under an older token can no longer write it
	 * (see {@link #get(String, LockLease)}).
	 * @param key the data's key
	 * @return the value, or {@code null} if the key has none
	 * @throws StaleFencingTokenException if a newer holder of the lock has read or written the key
	 */
	public @Nullable String get(String key) {
		return get(key, LockContext.current());
	}

	/**
	 * Read a string value under the given lease, raising the key's fence to its token first.
	 * Read what you will write this way: a read-modify-write is safe only if the read, too, shuts
	 * out older holders. Otherwise a holder whose lease ran out could write between a newer
	 * holder's read and its write, and the newer holder would overwrite that write unknowingly.
	 * @param key the data's key
	 * @param lease the lease the read is made under
	 * @return the value, or {@code null} if the key has none
	 * @throws StaleFencingTokenException if a newer holder of the lock has read or written the key
	 */
	public @Nullable String get(String key, LockLease lease) {
		long token = lease.fencingToken();
		String answer = this.template.execute(GET, List.of(key, fenceKey(key)), Long.toString(token));
		if (answer == null || answer.isEmpty()) {
			throw new IllegalStateException("No reply from the fenced read of '" + key + "'");
		}
		return switch (answer.charAt(0)) {
			case '=' -> answer.substring(1);
			case '-' -> null;
			case '!' -> throw rejected(lease, key, token, Long.parseLong(answer.substring(1)));
			default -> throw new IllegalStateException(
					"Unexpected reply from the fenced read of '" + key + "': " + answer);
		};
	}

	/**
	 * Set a string value under the innermost lock the calling thread holds.
	 * @param key the data's key
	 * @param value the value
	 * @throws StaleFencingTokenException if a newer holder of the lock has written the key
	 */
	public void set(String key, String value) {
		set(key, value, LockContext.current());
	}

	/**
	 * Set a string value under the given lease.
	 * @param key the data's key
	 * @param value the value
	 * @param lease the lease the write is made under
	 * @throws StaleFencingTokenException if a newer holder of the lock has written the key
	 */
	public void set(String key, String value, LockLease lease) {
		run(SET, key, lease, List.of(Objects.requireNonNull(value, "value must not be null")));
	}

	/**
	 * Set fields of a hash under the innermost lock the calling thread holds.
	 * @param key the hash's key
	 * @param fields the fields to set and their values
	 * @throws StaleFencingTokenException if a newer holder of the lock has written the key
	 */
	public void putAll(String key, Map<String, String> fields) {
		putAll(key, fields, LockContext.current());
	}

	/**
	 * Set fields of a hash under the given lease.
	 * @param key the hash's key
	 * @param fields the fields to set and their values, at least one
	 * @param lease the lease the write is made under
	 * @throws StaleFencingTokenException if a newer holder of the lock has written the key
	 */
	public void putAll(String key, Map<String, String> fields, LockLease lease) {
		if (fields.isEmpty()) {
			throw new IllegalArgumentException("fields must name at least one field to set");
		}
		List<String> args = new ArrayList<>();
		fields.forEach((field, value) -> {
			args.add(field);
			args.add(value);
		});
		run(HASH_PUT, key, lease, args);
	}

	private void run(RedisScript<Long> script, String key, LockLease lease, List<String> values) {
		long token = lease.fencingToken();
		Object[] args = new Object[values.size() + 1];
		args[0] = Long.toString(token);
		for (int i = 0; i < values.size(); i++) {
			args[i + 1] = values.get(i);
		}
		Long newer = this.template.execute(script, List.of(key, fenceKey(key)), args);
		if (newer != null && newer >= 0) {
			throw rejected(lease, key, token, newer);
		}
	}

	private StaleFencingTokenException rejected(LockLease lease, String key, long token, long newer) {
		StaleFencingTokenException stale = new StaleFencingTokenException(key, token, newer);
		FencingRejections.tell(this.listener, lease, stale);
		return stale;
	}

	/**
	 * Return the key that records the newest token written to a data key: the data key with a
	 * suffix, in the same Redis Cluster slot (its hash tag, or the whole key as the tag).
	 * @param key the data's key
	 * @return the fence key
	 * @throws IllegalArgumentException for a key without a hash tag that contains a closing
	 * brace, whose slot no other key can be given: give it a hash tag such as {@code {stock}:42}
	 */
	public static String fenceKey(String key) {
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

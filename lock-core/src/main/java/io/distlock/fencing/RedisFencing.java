package io.distlock.fencing;

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
		RedisFenceScripts.Read read = RedisFenceScripts.Read.of(key, this.template.execute(RedisFenceScripts.GET,
				RedisFenceScripts.keys(key), Long.toString(token)));
		if (read.newerToken() >= 0) {
			throw rejected(lease, key, token, read.newerToken());
		}
		return read.value();
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
		write(RedisFenceScripts.SET, key, lease, RedisFenceScripts.setArgs(lease.fencingToken(), value));
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
		write(RedisFenceScripts.HASH_PUT, key, lease, RedisFenceScripts.hashArgs(lease.fencingToken(), fields));
	}

	private void write(RedisScript<Long> script, String key, LockLease lease, List<String> args) {
		long newer = RedisFenceScripts
			.newerToken(this.template.execute(script, RedisFenceScripts.keys(key), args.toArray()));
		if (newer >= 0) {
			throw rejected(lease, key, lease.fencingToken(), newer);
		}
	}

	private StaleFencingTokenException rejected(LockLease lease, String key, long token, long newer) {
		StaleFencingTokenException stale = new StaleFencingTokenException(key, token, newer);
		FencingRejections.tell(this.listener, lease, stale);
		return stale;
	}

	/**
	 * Return the key that records the newest token that read or wrote a data key: the data key
	 * with a suffix, in the same Redis Cluster slot (its hash tag, or the whole key as the tag).
	 * @param key the data's key
	 * @return the fence key
	 * @throws IllegalArgumentException for a key without a hash tag that contains a closing
	 * brace, whose slot no other key can be given: give it a hash tag such as {@code {stock}:42}
	 */
	public static String fenceKey(String key) {
		return RedisFenceScripts.fenceKey(key);
	}

}

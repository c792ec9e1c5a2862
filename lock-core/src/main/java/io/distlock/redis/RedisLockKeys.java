package io.distlock.redis;

import java.nio.charset.StandardCharsets;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockKeyException;

/**
 * The Redis names of a lock: {@code <prefix>{<key>}} for the lock itself and auxiliary keys that
 * share its {@code {...}} hash tag, so that every script touches one cluster slot.
 * <ul>
 * <li>{@code <prefix>{<key>}}: the owner of the current grant, with the lease as its TTL;</li>
 * <li>{@code <prefix>{<key>}:fence}: the last fencing token, kept for the fence retention time;</li>
 * <li>{@code <prefix>{<key>}:waiting}: present while some process waits, so that a release
 * publishes only then;</li>
 * <li>{@code <prefix>{<key>}:queue} and {@code :queue-deadlines}: the waiters of a fair lock in
 * arrival order, and when each waiter's place expires unless it comes back;</li>
 * <li>{@code <prefix>{<key>}:write}, {@code :readers} and {@code :writer-waiting}: a read/write
 * lock's writer, its readers with their expiry, and the mark of a waiting writer that holds
 * back new readers;</li>
 * <li>{@code <prefix>released}: the pub/sub channel of release notifications; a message is the
 * released user key.</li>
 * </ul>
 */
public final class RedisLockKeys {

	private final String prefix;

	private final byte[] channel;

	/**
	 * Create the keys of a prefix.
	 * @param prefix the prefix of every key
	 * @throws LockConfigurationException if the prefix is empty or holds '{' or '}'
	 */
	public RedisLockKeys(String prefix) {
		if (prefix == null || prefix.isEmpty()) {
			throw new InvalidRegistryOptionException("keyPrefix", prefix, "keyPrefix must not be empty");
		}
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new InvalidRegistryOptionException("keyPrefix", prefix,
					"keyPrefix must not contain '{' or '}' (they delimit the hash tag) but was '" + prefix + "'");
		}
		this.prefix = prefix;
		this.channel = bytes(prefix + "released");
	}

	/**
	 * Return the prefix of every key.
	 * @return the prefix
	 */
	public String prefix() {
		return this.prefix;
	}

	/**
	 * Return the name of the key that holds a user key's lock.
	 * @param key the user key
	 * @return the lock key
	 * @throws LockKeyException if the key would empty the hash tag
	 */
	public String lockKey(String key) {
		if (key.charAt(0) == '}') {
			throw new LockKeyException("Lock key must not start with '}' (it would empty the Redis hash tag) but was '"
					+ key + "'");
		}
		return this.prefix + "{" + key + "}";
	}

	/**
	 * Return the key that holds the lock of a user key, as UTF-8.
	 * @param key the user key
	 * @return the key
	 */
	public byte[] lock(String key) {
		return bytes(lockKey(key));
	}

	/**
	 * Return the key that holds the last fencing token of a user key, as UTF-8.
	 * @param key the user key
	 * @return the key
	 */
	public byte[] fence(String key) {
		return bytes(lockKey(key) + ":fence");
	}

	/**
	 * Return the key that holds the mark that someone waits for the lock of a user key, as UTF-8.
	 * @param key the user key
	 * @return the key
	 */
	public byte[] waiting(String key) {
		return bytes(lockKey(key) + ":waiting");
	}

	byte[] queue(String key) {
		return bytes(lockKey(key) + ":queue");
	}

	byte[] queueDeadlines(String key) {
		return bytes(lockKey(key) + ":queue-deadlines");
	}

	byte[] write(String key) {
		return bytes(lockKey(key) + ":write");
	}

	byte[] readers(String key) {
		return bytes(lockKey(key) + ":readers");
	}

	byte[] writerWaiting(String key) {
		return bytes(lockKey(key) + ":writer-waiting");
	}

	byte[] channel() {
		return this.channel;
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

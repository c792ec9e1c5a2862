package io.distlock.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockKeyException;

/**
 * How long a lock key may be, in UTF-8 bytes, and what becomes of a longer one (reliability
 * catalogue B6). Redis takes keys of up to 512 MB, but a long key costs memory and time on every
 * acquire, renewal and release, and is usually a mistake (an entity's whole {@code toString()}).
 * A longer key is refused with a {@link LockKeyException}, or replaced by its start and its
 * SHA-256 digest: equal keys give equal locks and different keys different ones (a key that
 * contains the digest mark {@code #sha256:} is digested too, whatever its length), and the
 * replacement is what leases, events and {@code /actuator/locks} show.
 *
 * @param maxBytes the longest key in UTF-8 bytes
 * @param overflow what becomes of a longer key
 */
public record KeyLimit(int maxBytes, Overflow overflow) {

	/** The default longest key: 512 bytes. */
	public static final int DEFAULT_MAX_BYTES = 512;

	/** The shortest longest key a registry may be given: room for a digested key. */
	public static final int MIN_MAX_BYTES = 256;

	/** The largest longest key a registry may be given: 1 MiB. */
	public static final int LIMIT_MAX_BYTES = 1024 * 1024;

	/** Keys of up to 512 bytes; longer ones refused. */
	public static final KeyLimit DEFAULT = new KeyLimit(DEFAULT_MAX_BYTES, Overflow.REFUSE);

	/** What separates a digested key's start from its digest. */
	private static final String DIGEST_MARK = "#sha256:";

	/** How many bytes of a digested key's start are kept, so that people can still read it. */
	private static final int KEPT_START_BYTES = 64;

	/**
	 * Validate the limit.
	 * @throws LockConfigurationException if the length is out of range
	 */
	public KeyLimit {
		Objects.requireNonNull(overflow, "overflow must not be null");
		if (maxBytes < MIN_MAX_BYTES || maxBytes > LIMIT_MAX_BYTES) {
			throw new InvalidRegistryOptionException("maxKeyBytes", maxBytes, "maxKeyBytes must be between "
					+ MIN_MAX_BYTES + " and " + LIMIT_MAX_BYTES + " but was '" + maxBytes + "'");
		}
	}

	/**
	 * Return the key a lock is taken on: the key itself if it is short enough, else its digest
	 * form.
	 * @param key a usable key
	 * @return the key to lock
	 * @throws LockKeyException if the key is too long and longer keys are refused
	 */
	public String apply(String key) {
		// A key that looks digested is digested too: no key written out can take the lock of a
		// long key that was digested.
		boolean digestForm = this.overflow == Overflow.HASH && key.contains(DIGEST_MARK);
		// A UTF-16 char is at most 3 UTF-8 bytes (a surrogate pair, two chars, is 4): short keys
		// are let through without encoding them.
		if (!digestForm && (long) key.length() * 3 <= this.maxBytes) {
			return key;
		}
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		if (!digestForm && bytes.length <= this.maxBytes) {
			return key;
		}
		String start = start(key);
		if (this.overflow == Overflow.REFUSE) {
			throw new LockKeyException("Lock key of " + bytes.length + " bytes is longer than the longest key, "
					+ this.maxBytes + " bytes (distlock.max-key-bytes): shorten it, lock on a digest of it, or set "
					+ "distlock.hash-long-keys=true. It starts with '" + start + "'");
		}
		return start + DIGEST_MARK + HexFormat.of().formatHex(sha256(bytes));
	}

	/**
	 * Return the longest start of the key that fits {@value #KEPT_START_BYTES} bytes, never
	 * splitting a character.
	 */
	private static String start(String key) {
		int bytes = 0;
		int end = 0;
		while (end < key.length()) {
			int codePoint = key.codePointAt(end);
			int size = (codePoint < 0x80) ? 1 : (codePoint < 0x800) ? 2 : (codePoint < 0x10000) ? 3 : 4;
			if (bytes + size > KEPT_START_BYTES) {
				break;
			}
			bytes += size;
			end += Character.charCount(codePoint);
		}
		return key.substring(0, end);
	}

	private static byte[] sha256(byte[] bytes) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(bytes);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

	/**
	 * What becomes of a key longer than the limit.
	 */
	public enum Overflow {

		/** Refuse it with a {@link LockKeyException}. */
		REFUSE,

		/** Lock on its start and its SHA-256 digest instead. */
		HASH

	}

}

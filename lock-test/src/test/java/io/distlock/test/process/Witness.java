package io.distlock.test.process;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The witness of a critical section, kept on a Redis that is never faulted: entering must find
 * the section empty ({@code SETNX}), leaving must find oneself in it (compare-and-delete); any
 * other outcome counts a violation of exclusion under {@code violations:<section>}. The fault
 * suite's oracle and the {@link WitnessWorkerMain} processes enter and leave through it.
 */
public final class Witness {

	private static final RedisScript<Long> ENTER = RedisScript.of(
			"if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then return 1 end "
					+ "redis.call('incr', KEYS[2]) return 0", Long.class);

	private static final RedisScript<Long> LEAVE = RedisScript.of(
			"if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) return 1 end "
					+ "redis.call('incr', KEYS[2]) return 0", Long.class);

	private Witness() {
	}

	/**
	 * Enter the section.
	 * @param redis the witness's Redis
	 * @param section the section, such as the lock's key
	 * @param holder who enters
	 * @return whether the section was empty
	 */
	public static boolean enter(StringRedisTemplate redis, String section, String holder) {
		return redis.execute(ENTER, keys(section), holder) == 1;
	}

	/**
	 * Leave the section.
	 * @param redis the witness's Redis
	 * @param section the section
	 * @param holder who leaves
	 * @return whether the holder was the one inside
	 */
	public static boolean leave(StringRedisTemplate redis, String section, String holder) {
		return redis.execute(LEAVE, keys(section), holder) == 1;
	}

	private static List<String> keys(String section) {
		return List.of("witness:" + section, "violations:" + section);
	}

}

package io.distlock.redis;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Reads a Lettuce connection factory's command timeout. Loaded only when Lettuce is on the class
 * path.
 */
final class LettuceTimeouts {

	private LettuceTimeouts() {
	}

	static long commandTimeoutMillis(RedisConnectionFactory connectionFactory, long defaultMillis) {
		return (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getTimeout() > 0)
				? lettuce.getTimeout() : defaultMillis;
	}

}

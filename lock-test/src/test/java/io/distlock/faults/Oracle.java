package io.distlock.faults;

import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import io.distlock.test.process.Witness;
import io.distlock.test.redis.RedisServer;

/**
 * The detectors of the fault suite, on a Redis that is never faulted:
 * <ul>
 * <li>a {@link Witness}: entering a critical section must find it empty, leaving must find
 * oneself in it; any other outcome is a violation of exclusion;</li>
 * <li>a fenced resource: a write is accepted only with a token larger than every token it
 * accepted before, so a stale holder's write is rejected.</li>
 * </ul>
 * Its server starts with it. A test class that shares one across its tests registers it as an
 * extension, which closes it after the class:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final Oracle oracle = new Oracle();
 * </pre>
 */
final class Oracle implements AutoCloseable, AfterAllCallback {

	/** Accept a write only with a token above the highest accepted; count rejections. */
	static final RedisScript<Long> FENCED_WRITE = RedisScript.of(
			"local max = tonumber(redis.call('get', KEYS[1]) or '0') "
					+ "if tonumber(ARGV[1]) > max then redis.call('set', KEYS[1], ARGV[1]) "
					+ "redis.call('set', KEYS[2], ARGV[2]) return 1 end "
					+ "redis.call('incr', KEYS[3]) return 0", Long.class);

	private final RedisServer server = RedisServer.start();

	int port() {
		return this.server.port();
	}

	StringRedisTemplate redis() {
		return this.server.template();
	}

	boolean enter(String section, String holder) {
		return Witness.enter(this.server.template(), section, holder);
	}

	boolean leave(String section, String holder) {
		return Witness.leave(this.server.template(), section, holder);
	}

	long violations(String section) {
		String value = this.server.template().opsForValue().get("violations:" + section);
		return (value != null) ? Long.parseLong(value) : 0;
	}

	boolean fencedWrite(String resource, long token, String value) {
		return this.server.template()
			.execute(FENCED_WRITE, List.of("fence:" + resource, "value:" + resource, "rejected:" + resource),
					Long.toString(token), value) == 1;
	}

	String value(String resource) {
		return this.server.template().opsForValue().get("value:" + resource);
	}

	@Override
	public void close() {
		this.server.close();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		close();
	}

}

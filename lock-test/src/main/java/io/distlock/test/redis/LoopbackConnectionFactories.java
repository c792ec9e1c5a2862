package io.distlock.test.redis;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Started Lettuce connection factories to a loopback port: a {@link RedisServer}'s, or that of
 * a {@code FaultProxy} in front of one, so that a test's registry talks to Redis through the
 * proxy:
 *
 * <pre class="code">
 * try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
 *     LettuceConnectionFactory factory = LoopbackConnectionFactories.start(proxy.port(), Duration.ofSeconds(5));
 *     ...
 *     factory.destroy();
 * }
 * </pre>
 */
public final class LoopbackConnectionFactories {

	private LoopbackConnectionFactories() {
	}

	/**
	 * Return a new started connection factory to {@code 127.0.0.1} on the given port; the caller
	 * destroys it.
	 * @param port the port, such as a server's or a proxy's
	 * @param commandTimeout how long a command may take
	 * @return the started connection factory
	 */
	public static LettuceConnectionFactory start(int port, Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}

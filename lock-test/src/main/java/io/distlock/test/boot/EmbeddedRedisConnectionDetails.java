package io.distlock.test.boot;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import io.distlock.test.redis.RedisServer;

/**
 * Spring Boot's Redis connection details for a {@link RedisServer} of the test kit: declare it
 * as a bean (or let {@link EmbeddedRedis} do so) and Boot's Redis auto-configuration connects
 * to that server instead of reading {@code spring.data.redis.*}.
 *
 * <pre class="code">
 * &#64;TestConfiguration(proxyBeanMethods = false)
 * class RedisTestConfiguration {
 *
 *     &#64;Bean(destroyMethod = "close")
 *     RedisServer redisServer() {
 *         return RedisServer.start();
 *     }
 *
 *     &#64;Bean
 *     EmbeddedRedisConnectionDetails redisConnectionDetails(RedisServer redisServer) {
 *         return new EmbeddedRedisConnectionDetails(redisServer);
 *     }
 * }
 * </pre>
 */
public class EmbeddedRedisConnectionDetails implements DataRedisConnectionDetails {

	private final RedisServer server;

	/**
	 * Create connection details for the server; it keeps its port across restarts.
	 * @param server the running server
	 */
	public EmbeddedRedisConnectionDetails(RedisServer server) {
		this.server = server;
	}

	/**
	 * Return the server these details point at.
	 * @return the server
	 */
	public RedisServer getServer() {
		return this.server;
	}

	@Override
	public Standalone getStandalone() {
		return Standalone.of(this.server.host(), this.server.port());
	}

}

package io.distlock.autoconfigure;

import io.distlock.core.LockConfigurationException;

/**
 * The application's {@code RedisConnectionFactory} is not Lettuce's, so the auto-configured
 * registry could not bound its Redis calls by the caller's deadline.
 */
public class LettuceRequiredException extends LockConfigurationException {

	private static final long serialVersionUID = 1L;

	private final String connectionFactoryType;

	/**
	 * Create an exception naming the connection factory found.
	 * @param connectionFactoryType the class name of the application's connection factory
	 */
	public LettuceRequiredException(String connectionFactoryType) {
		super("distlock needs Lettuce, but the application's RedisConnectionFactory is a '" + connectionFactoryType
				+ "': distlock runs every Redis call on Lettuce's asynchronous API so that a wait time, a lease "
				+ "deadline or a health check bounds it, whatever the driver's command timeout is; a blocking "
				+ "driver such as Jedis would let its own timeout (60s by default) decide how long a caller waits");
		this.connectionFactoryType = connectionFactoryType;
	}

	/**
	 * Return the class name of the connection factory that is not Lettuce's.
	 * @return the factory's class name
	 */
	public String getConnectionFactoryType() {
		return this.connectionFactoryType;
	}

}

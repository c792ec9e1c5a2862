package io.distlock.autoconfigure;

import io.distlock.redis.RedisLockRegistry;

/**
 * Customizes the auto-configured {@code RedisLockRegistry} before it is built, for options the
 * {@code distlock.*} properties do not cover (such as the instance id).
 */
@FunctionalInterface
public interface RedisLockRegistryBuilderCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder, with the properties already applied
	 */
	void customize(RedisLockRegistry.Builder builder);

}

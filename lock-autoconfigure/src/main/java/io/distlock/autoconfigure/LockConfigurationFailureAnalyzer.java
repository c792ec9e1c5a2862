package io.distlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.distlock.core.LockConfigurationException;

/**
 * Explains a startup failure caused by a lock annotation or a {@code distlock.*} property, and
 * names what to fix.
 */
class LockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LockConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockConfigurationException cause) {
		String action;
		if (cause instanceof LockStoreUnavailableException) {
			action = "Start the Redis that holds the locks, or point spring.data.redis.* (or distlock.redlock.nodes) at "
					+ "it; or set distlock.fail-fast=false to start without it (lock calls then fail until it answers).";
		}
		else if (cause instanceof InvalidLockPropertyException property) {
			action = "Update '" + property.getProperty() + "' in your application configuration.";
		}
		else if (cause instanceof LettuceRequiredException) {
			action = "Use Lettuce, the default client of spring-boot-starter-data-redis: remove the Jedis dependency "
					+ "(redis.clients:jedis) or spring.data.redis.client-type=jedis, or define your own "
					+ "RedisConnectionFactory as a LettuceConnectionFactory. To keep another driver, define your own "
					+ "LockRegistry bean; the starter then backs off.";
		}
		else {
			action = "Fix the @DistributedLock attribute or distlock.* property named above.";
		}
		// The outermost lock exception in the chain: the validator's, which names the bean too.
		return new FailureAnalysis(cause.getMessage(), action, cause);
	}

}

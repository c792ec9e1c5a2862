package io.distlock.autoconfigure;

import java.util.Map;
import java.util.Set;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;

/**
 * Explains a startup failure caused by a lock annotation or a {@code distlock.*} property, and
 * names what to fix. A rule the registry builder checks fails there, naming the builder's
 * option: when the builder is the auto-configured registry's, the analysis names the property
 * that set the option.
 */
class LockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LockConfigurationException> {

	/** The auto-configured registries, whose builders take their options from the properties. */
	private static final Set<String> REGISTRY_BEANS = Set.of("distlockRegistry", "distlockRedlockRegistry",
			"distlockJdbcRegistry");

	/** The property behind each option the auto-configuration sets on a registry builder. */
	private static final Map<String, String> PROPERTIES = Map.ofEntries(
			Map.entry("leaseTime", "distlock.lease-time"), Map.entry("renewalInterval", "distlock.renewal-interval"),
			Map.entry("retryInterval", "distlock.retry-interval"),
			Map.entry("fenceRetentionTime", "distlock.fence-retention-time"),
			Map.entry("maxLocalHandoffs", "distlock.local-handoff.max-handoffs"),
			Map.entry("maxLocalHandoffTime", "distlock.local-handoff.max-time"),
			Map.entry("replicas", "distlock.replica-acknowledgement.replicas"),
			Map.entry("replicaTimeout", "distlock.replica-acknowledgement.timeout"),
			Map.entry("perNodeTimeout", "distlock.redlock.per-node-timeout"),
			Map.entry("driftFactor", "distlock.redlock.drift-factor"),
			Map.entry("restartDelay", "distlock.redlock.restart-delay"), Map.entry("nodes", "distlock.redlock.nodes"),
			Map.entry("minValidity", "distlock.redlock.min-validity"), Map.entry("keyPrefix", "distlock.key-prefix"),
			Map.entry("maxKeyBytes", "distlock.max-key-bytes"), Map.entry("maxLeaseTime", "distlock.max-lease-time"),
			Map.entry("tableName", "distlock.jdbc.table-name"));

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockConfigurationException cause) {
		String property = propertyOf(rootFailure, cause);
		if (property != null) {
			return new FailureAnalysis("Property '" + property + "' is invalid: " + cause.getMessage(),
					"Update '" + property + "' in your application configuration.", cause);
		}
		String action;
		if (cause instanceof LockStoreUnavailableException) {
			action = "Start the Redis that holds the locks, or point spring.data.redis.* (or distlock.redlock.nodes) at "
					+ "it; or set distlock.fail-fast=false to start without it (lock calls then fail until it answers).";
		}
		else if (cause instanceof InvalidLockPropertyException invalid) {
			action = "Update '" + invalid.getProperty() + "' in your application configuration.";
		}
		else if (cause instanceof LettuceRequiredException) {
			action = "Use Lettuce, the default client of spring-boot-starter-data-redis: remove the Jedis dependency "
					+ "(redis.clients:jedis) or spring.data.redis.client-type=jedis, or define your own "
					+ "RedisConnectionFactory as a LettuceConnectionFactory. To keep another driver, define your own "
					+ "LockRegistry bean; the starter then backs off.";
		}
		else {
			action = "Fix the @DistributedLock attribute, the @LeaderOnly method or bean, or the distlock.* property "
					+ "named above.";
		}
		// The outermost lock exception in the chain: the validator's, which names the bean too.
		return new FailureAnalysis(cause.getMessage(), action, cause);
	}

	/**
	 * Return the property behind a registry builder's invalid option, when the builder is the
	 * auto-configured registry's; {@code null} otherwise (a registry of the application's own).
	 */
	static String propertyOf(Throwable rootFailure, LockConfigurationException cause) {
		if (!(cause instanceof InvalidRegistryOptionException invalid)) {
			return null;
		}
		for (Throwable failure = rootFailure; failure != null && failure != cause; failure = failure.getCause()) {
			if (failure instanceof BeanCreationException creation && REGISTRY_BEANS.contains(creation.getBeanName())) {
				return PROPERTIES.get(invalid.getOption());
			}
		}
		return null;
	}

}

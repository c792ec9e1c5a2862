package io.distlock.autoconfigure;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Matches when the locks live in the database: {@code distlock.store=jdbc}, or no
 * {@code distlock.store} and neither Redlock nodes nor a {@link RedisConnectionFactory} bean.
 */
class OnJdbcStoreCondition extends SpringBootCondition implements ConfigurationCondition {

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String store = context.getEnvironment().getProperty("distlock.store");
		if (store != null && !store.isBlank()) {
			boolean jdbc = store.trim().equalsIgnoreCase("jdbc");
			return jdbc ? ConditionOutcome.match("distlock.store=jdbc")
					: ConditionOutcome.noMatch("distlock.store=" + store);
		}
		if (new OnRedlockNodesCondition().getMatchOutcome(context, metadata).isMatch()) {
			return ConditionOutcome.noMatch("distlock.redlock.nodes is set");
		}
		ConfigurableListableBeanFactory beans = context.getBeanFactory();
		if (beans != null && beans.getBeanNamesForType(RedisConnectionFactory.class, true, false).length > 0) {
			return ConditionOutcome.noMatch("a RedisConnectionFactory bean exists and distlock.store is not set");
		}
		return ConditionOutcome.match("no distlock.store and no RedisConnectionFactory bean");
	}

}

package io.distlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.distlock.core.CompositeLockListener;
import io.distlock.core.EventPublishingLockListener;
import io.distlock.core.LockListener;
import io.distlock.core.LockRegistry;
import io.distlock.redis.RedisLockRegistry;

/**
 * The lock registry on the application's Redis, unless the application defines its own.
 */
@Configuration(proxyBeanMethods = false)
class LockRegistryConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockRegistry.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	RedisLockRegistry distlockRegistry(RedisConnectionFactory connectionFactory, DistlockProperties properties,
			ObjectProvider<LockListener> listeners, ObjectProvider<RedisLockRegistryBuilderCustomizer> customizers) {
		RedisLockRegistry.Builder builder = RedisLockRegistry.builder(connectionFactory)
			.keyPrefix(properties.getKeyPrefix())
			.leaseTime(properties.getLeaseTime())
			.renewalInterval(properties.effectiveRenewalInterval())
			.waitStrategy(properties.getWaitStrategy())
			.fenceRetentionTime(properties.getFenceRetentionTime())
			.listener(CompositeLockListener.of(listeners.orderedStream().toList()));
		if (properties.getRetryInterval() != null) {
			builder.retryInterval(properties.getRetryInterval());
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	@Bean
	@ConditionalOnMissingBean
	EventPublishingLockListener distlockEventPublishingListener(ApplicationEventPublisher publisher) {
		return new EventPublishingLockListener(publisher);
	}

}

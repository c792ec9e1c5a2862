package io.distlock.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

import io.distlock.core.LockListener;
import io.distlock.core.LockRegistry;
import io.distlock.listener.CompositeLockListener;
import io.distlock.listener.EventPublishingLockListener;
import io.distlock.redis.AbstractRedisRegistryBuilder;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redlock.RedlockRegistry;

/**
 * The lock registry: Redlock over {@code distlock.redlock.nodes} when they are set, otherwise on
 * the application's Redis; none when the application defines its own.
 */
@Configuration(proxyBeanMethods = false)
class LockRegistryConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockRegistry.class)
	@Conditional(OnRedlockNodesCondition.class)
	RedlockRegistry distlockRedlockRegistry(DistlockProperties properties, ObjectProvider<LockListener> listeners) {
		DistlockProperties.Redlock redlock = properties.getRedlock();
		return common(RedlockRegistry.builderForUris(redlock.getNodes()), properties, listeners)
			.perNodeTimeout(redlock.getPerNodeTimeout())
			.driftFactor(redlock.getDriftFactor())
			.minValidity(redlock.getMinValidity())
			.restartDelay(redlock.getRestartDelay())
			.build();
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockRegistry.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	RedisLockRegistry distlockRegistry(RedisConnectionFactory connectionFactory, DistlockProperties properties,
			ObjectProvider<LockListener> listeners, ObjectProvider<RedisLockRegistryBuilderCustomizer> customizers) {
		if (properties.getStore() == DistlockProperties.Store.JDBC) {
			throw new InvalidLockPropertyException("distlock.store", "jdbc", "needs distlock-jdbc on the class path and"
					+ " one DataSource bean, for the PostgreSQL lock registry; neither lock store was configured");
		}
		requireLettuce(connectionFactory);
		RedisLockRegistry.Builder builder = common(RedisLockRegistry.builder(connectionFactory), properties, listeners)
			.localHandoff(properties.getLocalHandoff().getMaxHandoffs(), properties.getLocalHandoff().getMaxTime())
			.keyspaceEvents(properties.getLossDetection().isKeyspaceEvents());
		DistlockProperties.ReplicaAcknowledgement acknowledgement = properties.getReplicaAcknowledgement();
		if (acknowledgement.getReplicas() != 0) {
			builder.replicaAcknowledgement(acknowledgement.getReplicas(), acknowledgement.getTimeout());
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	/**
	 * Set the options every registry on Redis takes from {@code distlock.*}.
	 */
	private static <B extends AbstractRedisRegistryBuilder<B>> B common(B builder, DistlockProperties properties,
			ObjectProvider<LockListener> listeners) {
		builder.keyPrefix(properties.getKeyPrefix())
			.leaseTime(properties.getLeaseTime())
			.renewalInterval(properties.getRenewalInterval())
			.waitStrategy(properties.getWaitStrategy())
			.fenceRetentionTime(properties.getFenceRetentionTime())
			.maxLeaseTime(properties.getMaxLeaseTime())
			.maxKeyBytes(properties.getMaxKeyBytes())
			.hashLongKeys(properties.isHashLongKeys())
			.listener(CompositeLockListener.of(listeners.orderedStream().toList()));
		if (properties.getRetryInterval() != null) {
			builder.retryInterval(properties.getRetryInterval());
		}
		return builder;
	}

	/**
	 * Refuse a connection factory of another driver than Lettuce: the registry bounds every call
	 * by its caller's deadline on Lettuce's asynchronous API, which Jedis does not have.
	 */
	private static void requireLettuce(RedisConnectionFactory connectionFactory) {
		if (!LettuceDriver.isLettuce(connectionFactory)) {
			throw new LettuceRequiredException(connectionFactory.getClass().getName());
		}
	}

	@Bean
	@ConditionalOnBean(RedisLockRegistry.class)
	LockStoreEvictionCheck distlockEvictionCheck(RedisConnectionFactory connectionFactory,
			DistlockProperties properties) {
		return new LockStoreEvictionCheck(Map.of("the Redis that holds the locks", connectionFactory), 1,
				properties.getEvictionCheck());
	}

	@Bean
	@ConditionalOnBean(RedlockRegistry.class)
	LockStoreEvictionCheck distlockRedlockEvictionCheck(RedlockRegistry registry, DistlockProperties properties) {
		return new LockStoreEvictionCheck(redlockNodes(registry), registry.getQuorum(), properties.getEvictionCheck());
	}

	@Bean
	@ConditionalOnBean(RedlockRegistry.class)
	RedlockPersistenceCheck distlockRedlockPersistenceCheck(RedlockRegistry registry, DistlockProperties properties) {
		return new RedlockPersistenceCheck(redlockNodes(registry), registry.getQuorum(),
				properties.getRedlock().effectivePersistenceCheck());
	}

	@Bean
	@ConditionalOnBean(RedlockRegistry.class)
	LockStoreCommandCheck distlockRedlockCommandCheck(RedlockRegistry registry, DistlockProperties properties) {
		return new LockStoreCommandCheck(redlockNodes(registry), properties);
	}

	/**
	 * Return the Redlock nodes' connection factories by their names in messages: their
	 * addresses, never their URIs, which may hold a password.
	 */
	private static Map<String, RedisConnectionFactory> redlockNodes(RedlockRegistry registry) {
		Map<String, RedisConnectionFactory> nodes = new LinkedHashMap<>();
		List<RedisConnectionFactory> factories = registry.getNodeConnectionFactories();
		for (int i = 0; i < factories.size(); i++) {
			RedisConnectionFactory node = factories.get(i);
			String name = "the Redlock node "
					+ (LettuceDriver.isLettuce(node) ? LettuceDriver.address(node) : "#" + (i + 1));
			// Factories of your own (Sentinel, say) may share a host name: every node is checked.
			nodes.put(nodes.containsKey(name) ? name + " (#" + (i + 1) + ")" : name, node);
		}
		return nodes;
	}

	@Bean
	@ConditionalOnBean(RedisLockRegistry.class)
	LockStoreCommandCheck distlockCommandCheck(RedisConnectionFactory connectionFactory,
			DistlockProperties properties) {
		return new LockStoreCommandCheck(Map.of("the Redis that holds the locks", connectionFactory), properties);
	}

	@Bean
	@ConditionalOnBooleanProperty("distlock.fail-fast")
	LockStoreStartupCheck distlockStartupCheck(ObjectProvider<LockRegistry> registries) {
		return new LockStoreStartupCheck(registries);
	}

	@Bean
	@ConditionalOnMissingBean
	EventPublishingLockListener distlockEventPublishingListener(ApplicationEventPublisher publisher) {
		return new EventPublishingLockListener(publisher);
	}

	/**
	 * Loads Lettuce's connection factory only when Lettuce is on the class path.
	 */
	private static final class LettuceDriver {

		private static final boolean present = ClassUtils.isPresent("io.lettuce.core.RedisClient",
				LockRegistryConfiguration.class.getClassLoader());

		static boolean isLettuce(RedisConnectionFactory connectionFactory) {
			return present && connectionFactory instanceof LettuceConnectionFactory;
		}

		static String address(RedisConnectionFactory lettuce) {
			LettuceConnectionFactory factory = (LettuceConnectionFactory) lettuce;
			return factory.getHostName() + ":" + factory.getPort();
		}

	}

}

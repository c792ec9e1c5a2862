package io.distlock.test.boot;

import java.util.Map;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

import io.distlock.test.redis.RedisServer;

/**
 * Registers the {@link RedisServer} and the {@link DataRedisConnectionDetails} that
 * {@link EmbeddedRedis} promises. It runs while the test's own configuration is read, before
 * auto-configuration, so Boot's {@code @ConditionalOnMissingBean(DataRedisConnectionDetails)}
 * sees the bean and backs off.
 */
class EmbeddedRedisRegistrar implements ImportBeanDefinitionRegistrar {

	static final String SERVER_BEAN_NAME = "distlockEmbeddedRedisServer";

	static final String CONNECTION_DETAILS_BEAN_NAME = "distlockEmbeddedRedisConnectionDetails";

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		Map<String, Object> attributes = metadata.getAnnotationAttributes(EmbeddedRedis.class.getName());
		String[] arguments = (attributes != null) ? (String[]) attributes.get("arguments") : new String[0];
		if (!registry.containsBeanDefinition(SERVER_BEAN_NAME)) {
			AbstractBeanDefinition server = BeanDefinitionBuilder
				.rootBeanDefinition(RedisServer.class, () -> RedisServer.start(arguments))
				.setDestroyMethodName("close")
				.setRole(BeanDefinition.ROLE_INFRASTRUCTURE)
				.getBeanDefinition();
			registry.registerBeanDefinition(SERVER_BEAN_NAME, server);
		}
		if (!registry.containsBeanDefinition(CONNECTION_DETAILS_BEAN_NAME)) {
			AbstractBeanDefinition details = BeanDefinitionBuilder
				.rootBeanDefinition(EmbeddedRedisConnectionDetails.class)
				.addConstructorArgReference(SERVER_BEAN_NAME)
				.setRole(BeanDefinition.ROLE_INFRASTRUCTURE)
				.getBeanDefinition();
			registry.registerBeanDefinition(CONNECTION_DETAILS_BEAN_NAME, details);
		}
	}

}

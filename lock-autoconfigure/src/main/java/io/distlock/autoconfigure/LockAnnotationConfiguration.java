package io.distlock.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

import io.distlock.core.LockListener;
import io.distlock.core.LockRegistry;
import io.distlock.interceptor.LockAdvisor;
import io.distlock.interceptor.LockDefinitions;
import io.distlock.interceptor.LockInterceptor;
import io.distlock.interceptor.LockMethodValidator;
import io.distlock.listener.CompositeLockListener;

/**
 * The advice of {@code @DistributedLock} and its startup validation. Infrastructure beans are
 * static or resolve their dependencies lazily, so that creating proxies early does not create
 * the application's beans early.
 */
@Configuration(proxyBeanMethods = false)
@Import(LockAnnotationConfiguration.AutoProxyRegistrar.class)
class LockAnnotationConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockDefinitions distlockLockDefinitions() {
		return new LockDefinitions();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockMethodValidator distlockLockMethodValidator(LockDefinitions definitions, Environment environment) {
		return new LockMethodValidator(definitions, aspectOrder(environment));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockAdvisor distlockLockAdvisor(LockDefinitions definitions, Environment environment,
			ObjectProvider<LockRegistry> registry, ObjectProvider<DistlockProperties> properties,
			ObjectProvider<LockListener> listeners, org.springframework.beans.factory.BeanFactory beanFactory) {
		LockInterceptor interceptor = new LockInterceptor(definitions, registry::getObject,
				() -> properties.getObject().getWaitTime(),
				() -> CompositeLockListener.of(listeners.orderedStream().toList()), beanFactory);
		return new LockAdvisor(interceptor, aspectOrder(environment));
	}

	private static int aspectOrder(Environment environment) {
		// Read before the properties bean exists: advisors are created before ordinary beans.
		return environment.getProperty("distlock.aspect-order", Integer.class, DistlockProperties.DEFAULT_ASPECT_ORDER);
	}

	/**
	 * Makes sure an auto-proxy creator exists even when Spring Boot's AOP auto-configuration is
	 * switched off; with it, Boot's own creator applies the advisor.
	 */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}

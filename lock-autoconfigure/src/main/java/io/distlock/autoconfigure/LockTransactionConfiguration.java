package io.distlock.autoconfigure;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.TransactionExecutionListener;

import io.distlock.interceptor.LockedTransactionGuard;
import io.distlock.reactive.ReactiveLockedTransactionGuard;

/**
 * Makes transactions that ran under a lost lock roll back: Spring Boot adds every
 * {@link TransactionExecutionListener} bean to the transaction managers it configures, and the
 * reactive transaction managers of the context are wrapped by
 * {@link ReactiveLockedTransactionGuard}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(TransactionExecutionListener.class)
class LockTransactionConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockedTransactionGuard distlockTransactionGuard() {
		return new LockedTransactionGuard();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Mono.class, ReactiveTransactionManager.class })
	static class ReactiveTransactionGuardConfiguration {

		@Bean
		static BeanPostProcessor distlockReactiveTransactionGuard() {
			return new ReactiveTransactionGuardPostProcessor();
		}

	}

	/**
	 * Wraps each reactive transaction manager bean with the guard. A bean that is also a
	 * {@link PlatformTransactionManager} is left alone: the wrapper would hide its blocking side,
	 * where {@link LockedTransactionGuard} already works.
	 */
	static final class ReactiveTransactionGuardPostProcessor implements BeanPostProcessor {

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof ReactiveTransactionManager manager && !(bean instanceof PlatformTransactionManager)) {
				return ReactiveLockedTransactionGuard.guard(manager);
			}
			return bean;
		}

	}

}

package io.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.TransactionExecutionListener;

import io.distlock.interceptor.LockedTransactionGuard;

/**
 * Makes transactions that ran under a lost lock roll back: Spring Boot adds every
 * {@link TransactionExecutionListener} bean to the transaction managers it configures.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(TransactionExecutionListener.class)
class LockTransactionConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockedTransactionGuard distlockTransactionGuard() {
		return new LockedTransactionGuard();
	}

}

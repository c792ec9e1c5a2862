package io.distlock.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock.aspect-order} places the lock among the application's other advice: advice
 * ordered before it runs outside the lock, advice ordered after it runs inside.
 */
@Timeout(60)
class AspectOrderIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** What the advice and the method saw, in call order. */
	static final List<String> seen = new CopyOnWriteArrayList<>();

	@BeforeEach
	void clear() {
		seen.clear();
	}

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withUserConfiguration(AdviceAt0And200.class)
			.withBean("reports", Reports.class);
	}

	@Test
	void adviceOrderedBeforeTheLockRunsOutsideItAndAdviceOrderedAfterRunsInside() {
		runner().withPropertyValues("distlock.aspect-order=100").run((context) -> {
			context.getBean(Reports.class).daily();
			assertThat(seen).containsExactly("order 0: held=false", "order 200: held=true", "method: held=true");
		});
	}

	@Test
	void movingTheLockAfterAnAdviceMovesThatAdviceOutside() {
		runner().withPropertyValues("distlock.aspect-order=300").run((context) -> {
			context.getBean(Reports.class).daily();
			assertThat(seen).containsExactly("order 0: held=false", "order 200: held=false", "method: held=true");
		});
	}

	private static String held() {
		return "held=" + LockContext.find().isPresent();
	}

	private static Advisor recording(int order) {
		DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
				AnnotationMatchingPointcut.forMethodAnnotation(DistributedLock.class),
				(MethodInterceptor) (invocation) -> {
					seen.add("order " + order + ": " + held());
					return invocation.proceed();
				});
		advisor.setOrder(order);
		return advisor;
	}

	public static class Reports {

		@DistributedLock(key = "'report:daily'")
		public void daily() {
			seen.add("method: " + held());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AdviceAt0And200 {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static Advisor adviceAt0() {
			return recording(0);
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static Advisor adviceAt200() {
			return recording(200);
		}

	}

}

package io.distlock.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies the {@link LockInterceptor} to every method annotated with
 * {@code @DistributedLock}, at an order that puts it outside {@code @Transactional}.
 */
public class LockAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient LockInterceptor interceptor;

	private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return LockDefinitions.isAnnotated(method, targetClass);
		}

	};

	/**
	 * Create the advisor.
	 * @param interceptor the advice
	 * @param order the advisor's order; lower runs outside higher
	 */
	public LockAdvisor(LockInterceptor interceptor, int order) {
		this.interceptor = interceptor;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}

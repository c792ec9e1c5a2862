package io.distlock.leader;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Applies the {@link LeaderOnlyInterceptor} to every method annotated with
 * {@code @LeaderOnly}, and checks, once the singletons exist, that each names a role an election
 * decides.
 */
public class LeaderOnlyAdvisor extends AbstractPointcutAdvisor implements SmartInitializingSingleton {

	private static final long serialVersionUID = 1L;

	private final transient LeaderOnlyInterceptor interceptor;

	private final transient Supplier<@Nullable LeaderElections> elections;

	private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return LeaderOnlyAdvisor.this.interceptor.roleOf(method, targetClass) != null;
		}

	};

	/**
	 * Create the advisor.
	 * @param elections the application's elections, asked for after the singletons exist;
	 * {@code null} when the application has none (no single lock registry)
	 * @param order the advisor's order; lower runs outside higher
	 */
	public LeaderOnlyAdvisor(Supplier<@Nullable LeaderElections> elections, int order) {
		this.elections = elections;
		this.interceptor = new LeaderOnlyInterceptor(elections);
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

	@Override
	public void afterSingletonsInstantiated() {
		LeaderElections known = this.elections.get();
		for (Map.Entry<Method, String> method : this.interceptor.methods().entrySet()) {
			if (known == null || known.find(method.getValue()).isEmpty()) {
				throw LeaderOnlyInterceptor.unknownRole(method.getKey(), method.getValue());
			}
		}
	}

}

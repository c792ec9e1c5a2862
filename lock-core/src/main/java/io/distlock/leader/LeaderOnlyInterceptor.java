package io.distlock.leader;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

import io.distlock.annotation.LeaderOnly;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;

/**
 * Runs a {@link LeaderOnly @LeaderOnly} method when this instance leads its role at the moment
 * of the call, with the role's lease bound to {@link LockContext} for fenced writes, and skips
 * it otherwise. The call runs on the caller's thread.
 */
public class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LeaderOnlyInterceptor.class);

	private final Supplier<@Nullable LeaderElections> elections;

	private final Map<Method, String> roles = new ConcurrentHashMap<>();

	/** The role of each method called so far, empty for one that is not annotated. */
	private final Map<MethodClassKey, String> calls = new ConcurrentHashMap<>();

	/**
	 * Create the interceptor.
	 * @param elections the application's elections, asked for at the first call; {@code null}
	 * when the application has none
	 */
	public LeaderOnlyInterceptor(Supplier<@Nullable LeaderElections> elections) {
		this.elections = elections;
	}

	/**
	 * Return the role of a method annotated with {@code @LeaderOnly}, checking the method.
	 * @param method the method
	 * @param targetClass the class it is called on
	 * @return the role, or {@code null} if the method is not annotated (or is a {@code @Bean}
	 * method, whose annotation marks the lifecycle bean it makes)
	 * @throws LockConfigurationException if the method does not return {@code void} or names no role
	 */
	@Nullable String roleOf(Method method, @Nullable Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
		if (annotation == null || AnnotatedElementUtils.hasAnnotation(specific, Bean.class)) {
			return null;
		}
		String name = specific.getDeclaringClass().getSimpleName() + "." + specific.getName();
		if (specific.getReturnType() != void.class) {
			throw new LockConfigurationException("@LeaderOnly method '" + name + "' must return void, not '"
					+ specific.getReturnType().getName() + "': a call on an instance that does not lead is skipped and"
					+ " has no result");
		}
		if (annotation.role().isBlank()) {
			throw new LockConfigurationException("@LeaderOnly method '" + name + "' names no role: set role");
		}
		this.roles.put(specific, annotation.role());
		return annotation.role();
	}

	/**
	 * Return the methods seen so far and their roles, for the startup check of the roles.
	 * @return the methods and roles
	 */
	Map<Method, String> methods() {
		return this.roles;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Class<?> targetClass = (invocation.getThis() != null) ? AopUtils.getTargetClass(invocation.getThis()) : null;
		String role = this.calls.computeIfAbsent(new MethodClassKey(invocation.getMethod(), targetClass),
				(key) -> Objects.requireNonNullElse(roleOf(invocation.getMethod(), targetClass), ""));
		if (role.isEmpty()) {
			return invocation.proceed();
		}
		LeaderElections elections = this.elections.get();
		Term term = ((elections != null) ? elections.find(role) : Optional.<LeaderElection>empty())
			.orElseThrow(() -> unknownRole(invocation.getMethod(), role))
			.enter();
		if (term == null) {
			if (logger.isDebugEnabled()) {
				logger.debug("Skipping " + invocation.getMethod() + ": this instance does not lead role '" + role + "'");
			}
			return null;
		}
		LockLease lease = term.leadership().lease();
		LockContext.bind(lease);
		try {
			return invocation.proceed();
		}
		finally {
			LockContext.unbind(lease);
			term.exit();
		}
	}

	static LockConfigurationException unknownRole(Method method, String role) {
		return new LockConfigurationException("@LeaderOnly method '" + method.getDeclaringClass().getSimpleName() + "."
				+ method.getName() + "' names role '" + role + "', which no leader election decides: configure "
				+ "distlock.leader.roles." + role + " or declare a LeaderElection bean for it (leader election needs one "
				+ "LockRegistry bean)");
	}

}

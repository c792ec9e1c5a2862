package io.distlock.interceptor;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockKeyException;
import io.distlock.core.LockListener;
import io.distlock.core.LockRegistry;

/**
 * The advice of {@code @DistributedLock}: evaluate the keys, take the locks, run the method,
 * release the locks; on failure, throw, skip or fall back as the annotation says.
 */
public class LockInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LockInterceptor.class);

	private final LockDefinitions definitions;

	private final Supplier<LockRegistry> registry;

	private final Supplier<Duration> defaultWaitTime;

	private final Supplier<LockListener> listener;

	private final LockKeyEvaluator keys;

	/**
	 * Create the interceptor.
	 * @param definitions the checked definitions
	 * @param registry supplies the registry at the first call
	 * @param defaultWaitTime the wait time of a definition without one
	 * @param listener supplies the listener told when a call is skipped or falls back
	 * @param beanFactory resolves {@code @bean} references in key expressions, or {@code null}
	 */
	public LockInterceptor(LockDefinitions definitions, Supplier<LockRegistry> registry,
			Supplier<Duration> defaultWaitTime, Supplier<LockListener> listener, BeanFactory beanFactory) {
		this.definitions = definitions;
		this.registry = registry;
		this.defaultWaitTime = defaultWaitTime;
		this.listener = listener;
		this.keys = new LockKeyEvaluator(beanFactory);
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target)
				: invocation.getMethod().getDeclaringClass();
		LockDefinition definition = this.definitions.find(invocation.getMethod(), targetClass);
		if (definition == null) {
			return invocation.proceed();
		}
		Duration waitTime = (definition.waitTime() != null) ? definition.waitTime() : this.defaultWaitTime.get();
		if (definition.resultKind().isReactive()) {
			return invokeReactive(definition, invocation, target, waitTime);
		}
		List<String> lockKeys = this.keys.keys(definition, target, invocation.getArguments());
		LockSet locks;
		try {
			locks = LockSet.acquire(this.registry.get(), definition, lockKeys, waitTime);
		}
		catch (LockAcquisitionException ex) {
			return onFailure(definition, invocation, ex);
		}
		return locks.invoke(invocation, definition);
	}

	/**
	 * A method returning a publisher: the keys are evaluated now, with the arguments of the call,
	 * and a bad key fails the publisher; the locks are taken when it is subscribed to.
	 */
	private Object invokeReactive(LockDefinition definition, MethodInvocation invocation, Object target,
			Duration waitTime) {
		List<String> lockKeys = null;
		RuntimeException keyFailure = null;
		try {
			lockKeys = this.keys.keys(definition, target, invocation.getArguments());
		}
		catch (LockKeyException ex) {
			keyFailure = ex;
		}
		return ReactiveLockInvocation.invoke(this.registry.get(), definition, lockKeys, keyFailure, waitTime,
				invocation, (ex) -> onFailure(definition, invocation, ex));
	}

	private Object onFailure(LockDefinition definition, MethodInvocation invocation, LockAcquisitionException ex)
			throws Throwable {
		switch (definition.onFailure()) {
			case SKIP -> {
				log(definition, ex, "skipped");
				this.listener.get().onFallback(definition.name(), "skip");
				return skippedResult(definition);
			}
			case FALLBACK -> {
				log(definition, ex, "falls back to " + definition.fallback().method().getName());
				this.listener.get().onFallback(definition.name(), "fallback");
				return definition.fallback().invoke(invocation.getThis(), invocation.getArguments(), ex);
			}
			default -> throw ex;
		}
	}

	private static Object skippedResult(LockDefinition definition) {
		return switch (definition.resultKind()) {
			case OPTIONAL -> Optional.empty();
			case COMPLETION_STAGE -> CompletableFuture.completedFuture(null);
			// A publisher that completes empty, made by the reactive path: null from a suspend
			// function, an empty Flow.
			case MONO, FLUX, PUBLISHER, SUSPEND, SUSPEND_FLOW, FLOW -> null;
			default -> null;
		};
	}

	private static void log(LockDefinition definition, LockAcquisitionException ex, String action) {
		if (ex.getCause() != null) {
			// A store failure is a degraded path, not ordinary contention.
			logger.warn(definition.describeMethod() + " " + action + ": " + ex.getMessage());
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(definition.describeMethod() + " " + action + ": " + ex.getMessage());
		}
	}

}

package io.distlock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import org.springframework.expression.Expression;

import io.distlock.annotation.OnFailure;

/**
 * One checked {@code @DistributedLock} method: everything the annotation says, parsed once at
 * startup.
 *
 * @param name the logical name (metrics, endpoint)
 * @param method the annotated method
 * @param targetClass the class the method is called on
 * @param keySources the key expressions as written; empty when the name is the key
 * @param keyExpressions the parsed key expressions
 * @param waitTime the wait time, or {@code null} for the configured default
 * @param leaseTime the fixed lease, or {@code null} for the watchdog
 * @param fair whether waiters are served in arrival order
 * @param onFailure what to do when the lock is not acquired
 * @param fallback the fallback method, or {@code null}
 * @param holdAtLeast the minimum hold time, {@link Duration#ZERO} for none
 * @param resultKind how the method returns its result
 */
public record LockDefinition(String name, Method method, Class<?> targetClass, List<String> keySources,
		List<Expression> keyExpressions, Duration waitTime, Duration leaseTime, boolean fair, OnFailure onFailure,
		FallbackMethod fallback, Duration holdAtLeast, ResultKind resultKind) {

	/**
	 * Return the method as {@code SimpleClassName.method(ParameterType, ...)}, for messages.
	 * @return the method's description
	 */
	public String describeMethod() {
		return describe(this.targetClass, this.method);
	}

	static String describe(Class<?> targetClass, Method method) {
		return targetClass.getSimpleName() + "." + method.getName() + "(" + describeParameters(method) + ")";
	}

	/**
	 * The parameter types as the source declares them: a Kotlin suspend function's trailing
	 * continuation is left out.
	 */
	static String describeParameters(Method method) {
		Class<?>[] types = method.getParameterTypes();
		int count = types.length;
		if (count > 0 && types[count - 1].getName().equals("kotlin.coroutines.Continuation")) {
			count--;
		}
		StringBuilder description = new StringBuilder();
		for (int i = 0; i < count; i++) {
			description.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return description.toString();
	}

	/**
	 * How an annotated method hands back its result, which decides how long the lock is held
	 * and what a skipped call returns.
	 */
	public enum ResultKind {

		/** {@code void}: a skipped call returns nothing. */
		VOID,

		/** A plain value, held until the method returns; a skipped call returns {@code null}. */
		VALUE,

		/** {@code Optional}: a skipped call returns {@code Optional.empty()}. */
		OPTIONAL,

		/**
		 * {@code CompletionStage} or {@code CompletableFuture}: held until the stage completes; a
		 * skipped call returns a stage completed with {@code null}.
		 */
		COMPLETION_STAGE,

		/**
		 * Reactor's {@code Mono}: locked on each subscription, held until it terminates or is
		 * cancelled; a skipped call completes empty.
		 */
		MONO,

		/**
		 * Reactor's {@code Flux}: locked on each subscription, held until it terminates or is
		 * cancelled; a skipped call completes empty.
		 */
		FLUX,

		/**
		 * Reactive Streams' {@code Publisher}: as {@link #FLUX} (a {@code Flux} is returned).
		 */
		PUBLISHER,

		/**
		 * A Kotlin {@code suspend} function: Spring's AOP proxy hands the advice the call as a
		 * {@code Mono} and awaits the one the advice returns in the calling coroutine; held until
		 * the function returns or the coroutine is cancelled; a skipped call returns {@code null}.
		 */
		SUSPEND,

		/**
		 * A Kotlin {@code suspend} function returning a {@code Flow}: as {@link #FLUX}, the proxy
		 * turning the {@code Flux} the advice returns back into a {@code Flow}.
		 */
		SUSPEND_FLOW,

		/**
		 * Kotlin's {@code Flow}: locked on each collection, held until it completes or the
		 * collector is cancelled; a skipped call returns an empty flow.
		 */
		FLOW;

		/**
		 * Return whether the method returns a publisher (or a Kotlin coroutine or flow, which the
		 * advice sees as one) that is locked per subscription.
		 * @return whether this is a reactive kind
		 */
		public boolean isReactive() {
			return this != VOID && this != VALUE && this != OPTIONAL && this != COMPLETION_STAGE;
		}

		/**
		 * Return whether the advice stands in for the method with a {@code Mono}, of at most one
		 * value.
		 * @return whether a {@code Mono} is returned to the caller or to Spring's coroutine bridge
		 */
		public boolean isSingle() {
			return this == MONO || this == SUSPEND;
		}

	}

}

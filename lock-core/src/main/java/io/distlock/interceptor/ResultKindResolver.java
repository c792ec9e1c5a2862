package io.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

import io.distlock.core.LockConfigurationException;
import io.distlock.interceptor.LockDefinition.ResultKind;

/**
 * Decides how an annotated method hands back its result, and so how long its lock is held,
 * refusing at startup a result the lock cannot be held over. Kotlin and Reactor are looked up by
 * name, so that neither is needed unless a method uses them.
 */
final class ResultKindResolver {

	private static final String PUBLISHER = "org.reactivestreams.Publisher";

	private static final String MONO = "reactor.core.publisher.Mono";

	private static final String FLUX = "reactor.core.publisher.Flux";

	private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

	private static final String KOTLIN_CONTINUATION = "kotlin.coroutines.Continuation";

	/**
	 * The bridge that Spring's AOP proxies use to run a suspend function as a {@code Mono} and
	 * that Spring's {@code ReactiveAdapterRegistry} uses to adapt a {@code Flow}.
	 */
	private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";

	private ResultKindResolver() {
	}

	static ResultKind resolve(String where, Method method) {
		Class<?> type = method.getReturnType();
		if (hasContinuation(method)) {
			return suspendKind(where, method);
		}
		if (type == void.class) {
			return ResultKind.VOID;
		}
		if (type == Optional.class) {
			return ResultKind.OPTIONAL;
		}
		if (type == CompletionStage.class || type == CompletableFuture.class) {
			return ResultKind.COMPLETION_STAGE;
		}
		ResultKind reactive = reactiveKind(where, type);
		if (reactive != null) {
			return reactive;
		}
		if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)) {
			throw new LockConfigurationException(where + ": return type '" + type.getName()
					+ "' is not supported: the lock could not be held until it completes, and releasing it when the "
					+ "method returns would be too early; return CompletableFuture or CompletionStage, or a value");
		}
		return ResultKind.VALUE;
	}

	/**
	 * Describe what the method returns, for messages: "a suspend function", "a method returning
	 * Mono".
	 */
	static String describe(Method method, ResultKind kind) {
		return switch (kind) {
			case SUSPEND -> "a suspend function";
			case SUSPEND_FLOW -> "a suspend function returning Flow";
			default -> "a method returning " + method.getReturnType().getSimpleName();
		};
	}

	/**
	 * A suspend function is held like a {@code Mono}: Spring's AOP proxy hands the advice the
	 * call as a publisher ({@code CoroutinesUtils.invokeSuspendingFunction}) and awaits the
	 * publisher the advice returns in the caller's coroutine, so cancelling the coroutine cancels
	 * the hold. Without kotlinx-coroutines-reactor the proxy calls the function directly and the
	 * advice would see it return at its first suspension, so it is refused.
	 */
	private static ResultKind suspendKind(String where, Method method) {
		if (!KotlinDetector.isKotlinType(method.getDeclaringClass())) {
			throw new LockConfigurationException(where + ": the method takes a " + KOTLIN_CONTINUATION
					+ " as its last parameter but is not a Kotlin suspend function, so the lock would be released "
					+ "when it first suspends; declare it as a suspend fun in a Kotlin class");
		}
		requireCoroutinesReactor(where, "a suspend function", method.getDeclaringClass().getClassLoader());
		if (!KotlinDetector.isKotlinReflectPresent()) {
			throw new LockConfigurationException(where + ": a suspend function is called through Kotlin "
					+ "reflection, and org.jetbrains.kotlin:kotlin-reflect is not on the classpath; add "
					+ "io.distlock:distlock-kotlin, which brings it");
		}
		Class<?> declared = new MethodParameter(method, -1).getParameterType();
		return is(declared, KOTLIN_FLOW) ? ResultKind.SUSPEND_FLOW : ResultKind.SUSPEND;
	}

	/**
	 * Mono, Flux, Publisher and Kotlin's Flow are held per subscription (per collection); every
	 * other deferred type is refused, since returning it as a value would release the lock before
	 * its work runs.
	 */
	private static ResultKind reactiveKind(String where, Class<?> type) {
		if (is(type, KOTLIN_FLOW)) {
			if (type.getName().equals(KOTLIN_FLOW)) {
				requireCoroutinesReactor(where, "a method returning Flow", type.getClassLoader());
				return ResultKind.FLOW;
			}
			throw new LockConfigurationException(where + ": return type '" + type.getName() + "' is not supported: "
					+ "distlock holds the lock per collection and can only return a Flow in its place; declare the "
					+ "return type as kotlinx.coroutines.flow.Flow");
		}
		if (Flow.Publisher.class.isAssignableFrom(type)) {
			throw new LockConfigurationException(where + ": return type '" + type.getName() + "' (a JDK Flow."
					+ "Publisher) is not supported: the lock would be released when the method returns, before "
					+ "anyone subscribes; return a Mono, Flux or org.reactivestreams.Publisher");
		}
		if (!is(type, PUBLISHER)) {
			return null;
		}
		String name = type.getName();
		ResultKind kind = name.equals(MONO) ? ResultKind.MONO : name.equals(FLUX) ? ResultKind.FLUX
				: name.equals(PUBLISHER) ? ResultKind.PUBLISHER : null;
		if (kind == null) {
			throw new LockConfigurationException(where + ": return type '" + name + "' is not supported: distlock "
					+ "holds the lock per subscription with Reactor and can only return a Mono, a Flux or a "
					+ "Publisher in its place; declare one of these (adapt other reactive types with Reactor)");
		}
		if (!ClassUtils.isPresent(FLUX, type.getClassLoader())) {
			throw new LockConfigurationException(where + ": return type '" + name + "' needs Reactor to hold the "
					+ "lock per subscription, and io.projectreactor:reactor-core is not on the classpath");
		}
		return kind;
	}

	private static void requireCoroutinesReactor(String where, String what, ClassLoader classLoader) {
		if (!ClassUtils.isPresent(COROUTINES_REACTOR, classLoader) || !ClassUtils.isPresent(FLUX, classLoader)) {
			throw new LockConfigurationException(where + ": " + what + " is held through Reactor, and "
					+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor is not on the classpath (without it the lock "
					+ "would be released when the coroutine first suspends); add io.distlock:distlock-kotlin, which "
					+ "brings it");
		}
	}

	private static boolean hasContinuation(Method method) {
		Class<?>[] types = method.getParameterTypes();
		return types.length > 0 && types[types.length - 1].getName().equals(KOTLIN_CONTINUATION);
	}

	private static boolean is(Class<?> type, String className) {
		return ClassUtils.isPresent(className, type.getClassLoader())
				&& ClassUtils.resolveClassName(className, type.getClassLoader()).isAssignableFrom(type);
	}

}

package io.distlock.aot;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;

/**
 * The hints every application using distlock needs, whatever its beans: the annotation's
 * attributes, which the interceptor reads reflectively, and the root object of key expressions
 * ({@code #root.methodName}, {@code #root.args}), which SpEL reads through its public getters.
 * Registered in {@code META-INF/spring/aot.factories}; the per-bean hints (annotated methods,
 * fallback methods, argument types) come from {@link DistributedLockBeanRegistrationAotProcessor}.
 */
public class DistlockRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * The root object of key expressions; package-private in {@code io.distlock.interceptor}.
	 */
	static final TypeReference KEY_EXPRESSION_ROOT = TypeReference
		.of("io.distlock.interceptor.LockKeyEvaluator$LockKeyRoot");

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(DistributedLock.class, MemberCategory.INVOKE_DECLARED_METHODS);
		hints.reflection().registerType(OnFailure.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection().registerType(KEY_EXPRESSION_ROOT, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}

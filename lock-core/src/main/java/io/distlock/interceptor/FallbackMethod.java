package io.distlock.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ReflectionUtils;

import io.distlock.core.LockAcquisitionException;

/**
 * The method a {@code @DistributedLock} method falls back to, found and checked at startup.
 */
public final class FallbackMethod {

	private final Method method;

	private final boolean takesException;

	private final boolean suspending;

	private FallbackMethod(Method method, boolean takesException, boolean suspending) {
		this.method = method;
		this.takesException = takesException;
		this.suspending = suspending;
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Find the fallback of an annotated method: a method of the same class with the given name,
	 * the same parameters (optionally followed by one that accepts a
	 * {@link LockAcquisitionException}) and a return type the annotated method can return. The
	 * fallback of a Kotlin {@code suspend} function is a {@code suspend} function too, compared
	 * without their continuations.
	 * @return the fallback, or {@code null} if no method fits
	 */
	static FallbackMethod find(Class<?> targetClass, Method annotated, String name) {
		boolean suspending = KotlinDetector.isSuspendingFunction(annotated);
		Class<?>[] parameters = valueParameters(annotated, suspending);
		FallbackMethod plain = null;
		for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(targetClass)) {
			if (!candidate.getName().equals(name) || !returnFits(annotated, candidate)
					|| suspending != KotlinDetector.isSuspendingFunction(candidate)) {
				continue;
			}
			Class<?>[] types = valueParameters(candidate, suspending);
			if (types.length == parameters.length + 1 && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
					&& types[parameters.length].isAssignableFrom(LockAcquisitionException.class)) {
				return new FallbackMethod(candidate, true, suspending);
			}
			if (Arrays.equals(types, parameters)) {
				plain = new FallbackMethod(candidate, false, suspending);
			}
		}
		return plain;
	}

	/**
	 * The parameters a caller passes: a suspend function's trailing continuation is not one.
	 */
	private static Class<?>[] valueParameters(Method method, boolean suspending) {
		Class<?>[] types = method.getParameterTypes();
		return suspending ? Arrays.copyOf(types, types.length - 1) : types;
	}

	private static boolean returnFits(Method annotated, Method candidate) {
		Class<?> expected = annotated.getReturnType();
		Class<?> actual = candidate.getReturnType();
		if (expected == void.class || actual == void.class) {
			return expected == actual;
		}
		return org.springframework.util.ClassUtils.isAssignable(expected, actual);
	}

	/**
	 * Return the fallback method.
	 * @return the method
	 */
	public Method method() {
		return this.method;
	}

	/**
	 * Call the fallback with the annotated method's arguments. A suspend fallback is started as a
	 * coroutine of its own, with {@code CoroutinesUtils}, and handed back as the publisher that
	 * runs it: the interceptor subscribes to it in the annotated call's place.
	 */
	Object invoke(Object target, Object[] arguments, LockAcquisitionException failure) throws Throwable {
		Object[] values = this.suspending ? Arrays.copyOf(arguments, arguments.length - 1) : arguments;
		Object[] actual = values;
		if (this.takesException) {
			actual = Arrays.copyOf(values, values.length + 1);
			actual[values.length] = failure;
		}
		if (this.suspending) {
			return CoroutinesUtils.invokeSuspendingFunction(this.method, target, actual);
		}
		try {
			return this.method.invoke(target, actual);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}

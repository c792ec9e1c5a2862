package io.distlock.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import org.springframework.util.ReflectionUtils;

import io.distlock.core.LockAcquisitionException;

/**
 * The method a {@code @DistributedLock} method falls back to, found and checked at startup.
 */
public final class FallbackMethod {

	private final Method method;

	private final boolean takesException;

	private FallbackMethod(Method method, boolean takesException) {
		this.method = method;
		this.takesException = takesException;
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Find the fallback of an annotated method: a method of the same class with the given name,
	 * the same parameters (optionally followed by one that accepts a
	 * {@link LockAcquisitionException}) and a return type the annotated method can return.
	 * @return the fallback, or {@code null} if no method fits
	 */
	static FallbackMethod find(Class<?> targetClass, Method annotated, String name) {
		Class<?>[] parameters = annotated.getParameterTypes();
		FallbackMethod plain = null;
		for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(targetClass)) {
			if (!candidate.getName().equals(name) || !returnFits(annotated, candidate)) {
				continue;
			}
			Class<?>[] types = candidate.getParameterTypes();
			if (types.length == parameters.length + 1 && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
					&& types[parameters.length].isAssignableFrom(LockAcquisitionException.class)) {
				return new FallbackMethod(candidate, true);
			}
			if (Arrays.equals(types, parameters)) {
				plain = new FallbackMethod(candidate, false);
			}
		}
		return plain;
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

	Object invoke(Object target, Object[] arguments, LockAcquisitionException failure) throws Throwable {
		Object[] actual = arguments;
		if (this.takesException) {
			actual = Arrays.copyOf(arguments, arguments.length + 1);
			actual[arguments.length] = failure;
		}
		try {
			return this.method.invoke(target, actual);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}

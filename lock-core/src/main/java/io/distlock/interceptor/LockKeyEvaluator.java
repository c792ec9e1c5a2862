package io.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.TreeSet;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

import io.distlock.core.LockKeyException;

/**
 * Evaluates the key expressions of a {@link LockDefinition} for one call, and refuses a key
 * that cannot name a lock before the method runs.
 */
final class LockKeyEvaluator {

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final BeanFactory beanFactory;

	LockKeyEvaluator(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Return the keys of a call, distinct and sorted (the global order in which several keys are
	 * taken).
	 */
	List<String> keys(LockDefinition definition, Object target, Object[] arguments) {
		if (definition.keyExpressions().isEmpty()) {
			return List.of(definition.name());
		}
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
				new LockKeyRoot(definition.method(), arguments, target, definition.targetClass()),
				definition.method(), arguments, this.parameterNames);
		if (this.beanFactory != null) {
			context.setBeanResolver(new BeanFactoryResolver(this.beanFactory));
		}
		TreeSet<String> keys = new TreeSet<>();
		for (int i = 0; i < definition.keyExpressions().size(); i++) {
			keys.add(evaluate(definition, definition.keySources().get(i), definition.keyExpressions().get(i), context));
		}
		return List.copyOf(keys);
	}

	private static String evaluate(LockDefinition definition, String source, Expression expression,
			MethodBasedEvaluationContext context) {
		Object value;
		try {
			value = expression.getValue(context);
		}
		catch (EvaluationException ex) {
			throw new LockKeyException(describe(definition, source) + " failed: " + ex.getMessage());
		}
		if (value == null) {
			throw new LockKeyException(describe(definition, source) + " evaluated to null; refusing to lock on 'null'");
		}
		String key = value.toString();
		if (key == null || key.isBlank()) {
			throw new LockKeyException(describe(definition, source) + " evaluated to a blank key '" + key + "'");
		}
		String identity = value.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(value));
		if (key.equals(identity)) {
			throw new LockKeyException(describe(definition, source) + " evaluated to '" + key + "', an object "
					+ "without its own toString(): every call would lock a different key; use one of its fields");
		}
		return key;
	}

	private static String describe(LockDefinition definition, String source) {
		return "Lock key '" + source + "' of " + definition.describeMethod();
	}

	/**
	 * The root object of key expressions, as in Spring's cache annotations:
	 * {@code #root.methodName}, {@code #root.args[0]}, {@code #root.targetClass}.
	 */
	static final class LockKeyRoot {

		private final Method method;

		private final Object[] args;

		private final Object target;

		private final Class<?> targetClass;

		LockKeyRoot(Method method, Object[] args, Object target, Class<?> targetClass) {
			this.method = method;
			this.args = args;
			this.target = target;
			this.targetClass = targetClass;
		}

		public Method getMethod() {
			return this.method;
		}

		public String getMethodName() {
			return this.method.getName();
		}

		public Object[] getArgs() {
			return this.args;
		}

		public Object getTarget() {
			return this.target;
		}

		public Class<?> getTargetClass() {
			return this.targetClass;
		}

	}

}

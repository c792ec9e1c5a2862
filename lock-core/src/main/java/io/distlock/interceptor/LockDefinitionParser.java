package io.distlock.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringValueResolver;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockConfigurationException;
import io.distlock.core.LockRequest;
import io.distlock.interceptor.LockDefinition.ResultKind;

/**
 * Turns a {@code @DistributedLock} annotation into a {@link LockDefinition}, refusing at
 * startup everything that cannot work, with a message that names the method and attribute.
 */
final class LockDefinitionParser {

	private static final String TOO_SHORT = "is shorter than the minimum lease of "
			+ LockRequest.MIN_LEASE_TIME.toMillis() + "ms: Redis expires keys to the millisecond and a holder"
			+ " keeps back a drift margin of 1% plus 2ms, so a shorter lease leaves too little validity to be granted";

	private static final Set<String> ROOT_VARIABLES = Set.of("root", "this");

	/** The kinds held through a coroutine, which keep no minimum hold yet. */
	private static final Set<ResultKind> COROUTINE_KINDS = EnumSet.of(ResultKind.SUSPEND, ResultKind.SUSPEND_FLOW,
			ResultKind.FLOW);

	private final SpelExpressionParser expressionParser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final StringValueResolver placeholders;

	/**
	 * Create a parser.
	 * @param placeholders resolves {@code ${...}} in duration attributes; {@code null} leaves
	 * them unresolved (and refused)
	 */
	LockDefinitionParser(StringValueResolver placeholders) {
		this.placeholders = placeholders;
	}

	LockDefinition parse(Method method, Class<?> targetClass, LockAnnotation lock) {
		DistributedLock annotation = lock.attributes();
		Where where = new Where(lock.describe(method, targetClass), lock);
		checkProxyable(where.method(), method, targetClass);
		List<String> keySources = keySources(where, annotation);
		List<Expression> expressions = new ArrayList<>();
		for (String source : keySources) {
			expressions.add(parseKey(where, method, source, annotation.keys().length > 0 ? "keys" : "key"));
		}
		String name = annotation.name().isBlank() ? targetClass.getSimpleName() + "." + method.getName()
				: annotation.name();
		Duration waitTime = duration(where, "waitTime", annotation.waitTime());
		if (waitTime != null && waitTime.isNegative()) {
			throw invalid(where, "waitTime", annotation.waitTime(), "must not be negative");
		}
		Duration leaseTime = duration(where, "leaseTime", annotation.leaseTime());
		if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
			throw invalid(where, "leaseTime", annotation.leaseTime(), "must be positive");
		}
		if (leaseTime != null && leaseTime.compareTo(LockRequest.MIN_LEASE_TIME) < 0) {
			throw invalid(where, "leaseTime", annotation.leaseTime(), TOO_SHORT);
		}
		Duration holdAtLeast = duration(where, "holdAtLeast", annotation.holdAtLeast());
		if (holdAtLeast == null) {
			holdAtLeast = Duration.ZERO;
		}
		if (holdAtLeast.isNegative()) {
			throw invalid(where, "holdAtLeast", annotation.holdAtLeast(), "must not be negative");
		}
		if (!holdAtLeast.isZero() && holdAtLeast.compareTo(LockRequest.MIN_LEASE_TIME) < 0) {
			throw invalid(where, "holdAtLeast", annotation.holdAtLeast(), TOO_SHORT);
		}
		if (leaseTime != null && holdAtLeast.compareTo(leaseTime) > 0) {
			throw invalid(where, "holdAtLeast", annotation.holdAtLeast(),
					"is longer than leaseTime '" + annotation.leaseTime() + "', so the lock would expire first");
		}
		ResultKind resultKind = ResultKindResolver.resolve(where.method(), method);
		if (COROUTINE_KINDS.contains(resultKind) && !holdAtLeast.isZero()) {
			throw invalid(where, "holdAtLeast", annotation.holdAtLeast(), "is not supported on "
					+ ResultKindResolver.describe(method, resultKind) + ": coroutines have no minimum hold yet "
					+ "(methods returning Mono or Flux do). Remove it, or return a Mono (mono { }) or a Flux");
		}
		FallbackMethod fallback = fallback(where, method, targetClass, annotation);
		if (annotation.onFailure() == OnFailure.SKIP && method.getReturnType().isPrimitive()
				&& method.getReturnType() != void.class) {
			throw new LockConfigurationException(where.method()
					+ ": onFailure SKIP cannot return a value of primitive type '" + method.getReturnType() + "'; return a wrapper type or void, or use THROW or FALLBACK");
		}
		return new LockDefinition(name, method, targetClass, List.copyOf(keySources), List.copyOf(expressions),
				waitTime, leaseTime, annotation.fair(), annotation.onFailure(), fallback, holdAtLeast, resultKind);
	}

	private static void checkProxyable(String where, Method method, Class<?> targetClass) {
		int modifiers = method.getModifiers();
		String problem = Modifier.isPrivate(modifiers) ? "private" : Modifier.isStatic(modifiers) ? "static"
				: Modifier.isFinal(modifiers) ? "final" : null;
		if (problem != null) {
			throw new LockConfigurationException(where + ": the method is " + problem
					+ ", so a proxy cannot intercept it and it would run without the lock; make it public and "
					+ "not static or final");
		}
		if (Modifier.isFinal(targetClass.getModifiers())) {
			throw new LockConfigurationException(where + ": class " + targetClass.getName()
					+ " is final, so a proxy cannot intercept the method and it would run without the lock");
		}
	}

	private static List<String> keySources(Where where, DistributedLock annotation) {
		if (!annotation.key().isBlank() && annotation.keys().length > 0) {
			throw new LockConfigurationException(where.method() + ": attributes " + where.attribute("key") + " and "
					+ where.attribute("keys") + " are exclusive; use 'keys' for several keys");
		}
		if (!annotation.key().isBlank()) {
			return List.of(annotation.key());
		}
		for (String key : annotation.keys()) {
			if (key.isBlank()) {
				throw new LockConfigurationException(
						where.method() + ": attribute " + where.attribute("keys") + " contains a blank expression");
			}
		}
		return Arrays.asList(annotation.keys());
	}

	private Expression parseKey(Where where, Method method, String source, String attribute) {
		Expression expression;
		try {
			expression = this.expressionParser.parseExpression(source);
		}
		catch (ParseException ex) {
			throw new LockConfigurationException(where.method() + ": attribute " + where.attribute(attribute)
					+ " value '" + source + "' is not a valid SpEL expression: " + ex.getSimpleMessage()
					+ " (a constant key is quoted: \"'report'\")", ex);
		}
		checkVariables(where, method, source, attribute, ((SpelExpression) expression).getAST());
		return expression;
	}

	private void checkVariables(Where where, Method method, String source, String attribute, SpelNode node) {
		if (node instanceof VariableReference) {
			String variable = node.toStringAST().substring(1);
			Set<String> known = knownVariables(method);
			if (!known.contains(variable) && !ROOT_VARIABLES.contains(variable)) {
				String[] names = this.parameterNames.getParameterNames(method);
				String hint = (names != null) ? "parameters: " + String.join(", ", names)
						: "parameter names are not available: compile with -parameters or use #p0";
				throw new LockConfigurationException(where.method() + ": attribute " + where.attribute(attribute)
						+ " value '" + source + "' refers to '#" + variable
						+ "', which is not a parameter of the method (" + hint + ")");
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkVariables(where, method, source, attribute, node.getChild(i));
		}
	}

	private Set<String> knownVariables(Method method) {
		Set<String> known = new HashSet<>();
		String[] names = this.parameterNames.getParameterNames(method);
		if (names != null) {
			known.addAll(Arrays.asList(names));
		}
		for (int i = 0; i < method.getParameterCount(); i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		return known;
	}

	private Duration duration(Where where, String attribute, String value) {
		if (value.isBlank()) {
			return null;
		}
		String resolved = value;
		if (value.contains("${")) {
			if (this.placeholders == null) {
				throw invalid(where, attribute, value, "uses a placeholder but no environment is available");
			}
			try {
				resolved = this.placeholders.resolveStringValue(value);
			}
			catch (IllegalArgumentException ex) {
				throw new LockConfigurationException(where.method() + ": attribute " + where.attribute(attribute)
						+ " value '" + value + "' cannot be resolved: " + ex.getMessage(), ex);
			}
			if (resolved == null || resolved.isBlank()) {
				throw invalid(where, attribute, value, "resolves to nothing");
			}
		}
		try {
			return LockDurationParser.parse(resolved);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(where, attribute, value, ex.getMessage());
		}
	}

	private static FallbackMethod fallback(Where where, Method method, Class<?> targetClass,
			DistributedLock annotation) {
		String name = annotation.fallbackMethod();
		if (annotation.onFailure() != OnFailure.FALLBACK) {
			if (!name.isBlank()) {
				throw new LockConfigurationException(where.method() + ": attribute " + where.attribute("fallbackMethod")
						+ " is set but onFailure is " + annotation.onFailure()
						+ "; set onFailure = OnFailure.FALLBACK or remove it");
			}
			return null;
		}
		if (name.isBlank()) {
			throw new LockConfigurationException(where.method()
					+ ": onFailure FALLBACK needs attribute 'fallbackMethod' naming a method of the same class");
		}
		FallbackMethod fallback = FallbackMethod.find(targetClass, method, name);
		if (fallback == null) {
			String parameters = LockDefinition.describeParameters(method);
			String separator = parameters.isEmpty() ? "" : ", ";
			String returning = KotlinDetector.isSuspendingFunction(method) ? " that is a suspend function too"
					: " returning " + method.getReturnType().getSimpleName();
			throw new LockConfigurationException(where.method() + ": attribute " + where.attribute("fallbackMethod")
					+ " names '" + name
					+ "', but " + targetClass.getSimpleName() + " has no method " + name + "(" + parameters + ") or "
					+ name + "(" + parameters + separator + "LockAcquisitionException)" + returning);
		}
		return fallback;
	}

	private static LockConfigurationException invalid(Where where, String attribute, String value, String problem) {
		return new LockConfigurationException(
				where.method() + ": attribute " + where.attribute(attribute) + " value '" + value + "' " + problem);
	}

	/**
	 * Where a message points: the annotated method, and each attribute as the user wrote it.
	 * @param method the start of every message, naming the annotation and the method
	 * @param lock the annotation, which names an attribute a composed annotation sets
	 */
	private record Where(String method, LockAnnotation lock) {

		String attribute(String attribute) {
			return this.lock.attribute(attribute);
		}

	}

}

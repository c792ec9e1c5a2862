package io.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.util.StringValueResolver;

import io.distlock.annotation.DistributedLock;

/**
 * The checked {@code @DistributedLock} definitions of an application, parsed once per method
 * and target class. Startup validation fills it; the interceptor and the Actuator endpoint read
 * it.
 */
public class LockDefinitions implements EnvironmentAware {

	private final Map<MethodClassKey, Optional<LockDefinition>> definitions = new ConcurrentHashMap<>();

	private volatile LockDefinitionParser parser = new LockDefinitionParser(null);

	@Override
	public void setEnvironment(Environment environment) {
		StringValueResolver resolver = (environment instanceof ConfigurableEnvironment configurable)
				? configurable::resolveRequiredPlaceholders : environment::resolveRequiredPlaceholders;
		this.parser = new LockDefinitionParser(resolver);
	}

	/**
	 * Return the definition of a method as called on a target class.
	 * @param method the invoked method (possibly an interface method)
	 * @param targetClass the class of the target object
	 * @return the definition, or {@code null} if the method is not annotated
	 * @throws io.distlock.core.LockConfigurationException if the annotation is invalid, or declared
	 * more than once (directly and through a composed annotation, or through two)
	 */
	public LockDefinition find(Method method, Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Optional<LockDefinition> cached = this.definitions.get(cacheKey);
		if (cached == null) {
			cached = Optional.ofNullable(parse(method, targetClass));
			this.definitions.putIfAbsent(cacheKey, cached);
		}
		return cached.orElse(null);
	}

	/**
	 * Return whether a method carries the annotation, directly or through a composed annotation,
	 * without parsing it.
	 * @param method the method
	 * @param targetClass the target class
	 * @return whether the method is annotated
	 */
	public static boolean isAnnotated(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		return AnnotatedElementUtils.hasAnnotation(specific, DistributedLock.class);
	}

	/**
	 * Return every definition found so far, sorted by name.
	 * @return the definitions
	 */
	public List<LockDefinition> all() {
		List<LockDefinition> all = new ArrayList<>();
		this.definitions.values().forEach((definition) -> definition.ifPresent(all::add));
		all.sort(Comparator.comparing(LockDefinition::name).thenComparing(LockDefinition::describeMethod));
		return all;
	}

	private LockDefinition parse(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		LockAnnotation annotation = LockAnnotation.find(specific, targetClass);
		return (annotation != null) ? this.parser.parse(specific, targetClass, annotation) : null;
	}

}

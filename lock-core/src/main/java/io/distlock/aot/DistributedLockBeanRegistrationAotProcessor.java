package io.distlock.aot;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.distlock.annotation.DistributedLock;

/**
 * Registers, at build time, the reflection a bean with {@link DistributedLock} methods needs at
 * run time in a native image: each annotated method (the interceptor reads its annotation and
 * SpEL its parameter names), the methods named by {@code fallbackMethod} (found among the
 * class's declared methods and invoked reflectively, whatever their signature: a Kotlin
 * {@code suspend} fallback with its trailing {@code Continuation}, a {@code Flow} or {@code Mono}
 * one), and the application types of the arguments, whose properties key expressions such as
 * {@code #order.id} read. For a {@code @DistributedLock} used through a composed annotation,
 * the composed annotation types (whose attributes Spring reads reflectively) and a JDK proxy of
 * {@code DistributedLock} (the merged annotation Spring synthesizes). Beans without the annotation
 * contribute nothing.
 */
public class DistributedLockBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	private final BindingReflectionHintsRegistrar bindingHints = new BindingReflectionHintsRegistrar();

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		List<Method> annotated = new ArrayList<>();
		ReflectionUtils.doWithMethods(beanClass, annotated::add,
				(method) -> AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class));
		if (annotated.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> register(generationContext.getRuntimeHints(), beanClass, annotated);
	}

	private void register(RuntimeHints hints, Class<?> beanClass, List<Method> annotated) {
		ReflectionHints reflection = hints.reflection();
		Set<String> fallbackNames = new LinkedHashSet<>();
		Set<Class<?>> argumentTypes = new LinkedHashSet<>();
		Set<Class<? extends Annotation>> composedTypes = new LinkedHashSet<>();
		for (Method method : annotated) {
			reflection.registerMethod(method, ExecutableMode.INVOKE);
			MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY)
				.stream(DistributedLock.class)
				.forEach((lock) -> addComposedTypes(lock, composedTypes));
			DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
			if (annotation != null && !annotation.fallbackMethod().isEmpty()) {
				fallbackNames.add(annotation.fallbackMethod());
			}
			Class<?>[] parameters = method.getParameterTypes();
			// A suspend function's trailing continuation is no argument a key expression reads.
			int arguments = KotlinDetector.isSuspendingFunction(method) ? parameters.length - 1 : parameters.length;
			for (Class<?> type : Arrays.copyOf(parameters, arguments)) {
				Class<?> element = type.isArray() ? type.getComponentType() : type;
				if (!element.isPrimitive() && !element.getName().startsWith("java.")) {
					argumentTypes.add(element);
				}
			}
		}
		if (!fallbackNames.isEmpty()) {
			// The fallback is looked up among all declared methods (ReflectionUtils.getUniqueDeclaredMethods).
			reflection.registerType(beanClass, MemberCategory.INTROSPECT_DECLARED_METHODS);
			for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(beanClass)) {
				if (fallbackNames.contains(candidate.getName())) {
					reflection.registerMethod(candidate, ExecutableMode.INVOKE);
				}
			}
		}
		this.bindingHints.registerReflectionHints(reflection, argumentTypes.toArray(Class<?>[]::new));
		if (!composedTypes.isEmpty()) {
			// Spring reads a composed annotation's attributes reflectively and hands back the merged
			// @DistributedLock as a JDK proxy of that interface alone.
			composedTypes.forEach((type) -> reflection.registerType(type, MemberCategory.INVOKE_DECLARED_METHODS));
			hints.proxies().registerJdkProxy(DistributedLock.class);
		}
	}

	/** The annotation types between the method and a {@code @DistributedLock} used as a meta-annotation. */
	private static void addComposedTypes(MergedAnnotation<?> lock, Set<Class<? extends Annotation>> composedTypes) {
		for (MergedAnnotation<?> source = lock.getMetaSource(); source != null; source = source.getMetaSource()) {
			composedTypes.add(source.getType());
		}
	}

}

package io.distlock.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.core.annotation.AliasFor;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockConfigurationException;

/**
 * The {@code @DistributedLock} of a method as Spring merges it, declared directly or through a
 * composed annotation such as {@code @StockLock}, with what a startup error needs to point the
 * user at what they wrote: {@code @DistributedLock from @StockLock on ...} and
 * {@code attribute 'key' (@StockLock's 'value')}.
 * <p>
 * As for {@code @Transactional}, a declaration on the method itself hides one on a method it
 * overrides or implements. Two declarations at the same level (directly and through a composed
 * annotation, or through two composed annotations) are refused: which one would win is not
 * something a reader of the method can tell.
 */
final class LockAnnotation {

	private final MergedAnnotation<DistributedLock> merged;

	private final DistributedLock attributes;

	private LockAnnotation(MergedAnnotation<DistributedLock> merged) {
		this.merged = merged;
		this.attributes = merged.synthesize();
	}

	/**
	 * Return the lock annotation of a method, searched as
	 * {@code AnnotatedElementUtils.findMergedAnnotation} searches it.
	 * @param method the method, as declared on the target class
	 * @param targetClass the class the method is called on, for messages
	 * @return the annotation, or {@code null} if the method has none
	 * @throws LockConfigurationException if the method carries more than one at the nearest level
	 */
	static LockAnnotation find(Method method, Class<?> targetClass) {
		List<MergedAnnotation<DistributedLock>> found = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY)
			.stream(DistributedLock.class)
			.toList();
		if (found.isEmpty()) {
			return null;
		}
		int nearest = found.stream().mapToInt(MergedAnnotation::getAggregateIndex).min().orElseThrow();
		List<MergedAnnotation<DistributedLock>> declared = found.stream()
			.filter((annotation) -> annotation.getAggregateIndex() == nearest)
			.sorted(Comparator.comparingInt(MergedAnnotation::getDistance))
			.toList();
		if (declared.size() > 1) {
			List<String> sources = declared.stream().map(LockAnnotation::source).toList();
			throw new LockConfigurationException("@DistributedLock on " + LockDefinition.describe(targetClass, method)
					+ " is declared " + declared.size() + " times (" + String.join(", ", sources)
					+ "), so it is not clear which lock the method takes; keep one of them");
		}
		return new LockAnnotation(declared.get(0));
	}

	/**
	 * Return the merged attributes.
	 * @return the annotation as the method would carry it directly
	 */
	DistributedLock attributes() {
		return this.attributes;
	}

	/**
	 * Return where the annotation is, for the start of a message:
	 * {@code @DistributedLock on StockService.reserve(long)} or
	 * {@code @DistributedLock from @StockLock on StockService.reserve(long)}.
	 * @param method the method
	 * @param targetClass the class the method is called on
	 * @return the description
	 */
	String describe(Method method, Class<?> targetClass) {
		String on = " on " + LockDefinition.describe(targetClass, method);
		return (this.merged.getDistance() == 0) ? "@DistributedLock" + on
				: "@DistributedLock " + source(this.merged) + on;
	}

	/**
	 * Return an attribute's name, quoted, with where a composed annotation sets it:
	 * {@code 'key' (@StockLock's 'value')} when an attribute of the composed annotation on the
	 * method overrides it, {@code 'waitTime' (declared on @StockLock)} when the composed
	 * annotation's own declaration fixes it, {@code 'key'} for a direct declaration.
	 * @param attribute the {@code @DistributedLock} attribute
	 * @return the description
	 */
	String attribute(String attribute) {
		String quoted = "'" + attribute + "'";
		if (this.merged.getDistance() == 0) {
			return quoted;
		}
		List<Class<? extends Annotation>> chain = chain(this.merged);
		// names.get(level): the attributes of chain.get(level) that set this attribute, through an
		// alias to any annotation below it (an alias may skip levels).
		int bottom = chain.size() - 1;
		List<Set<String>> names = new ArrayList<>(chain.size());
		chain.forEach((type) -> names.add(Set.of()));
		names.set(bottom, aliases(DistributedLock.class, Set.of(attribute)));
		for (int level = bottom - 1; level >= 0; level--) {
			Set<String> overriding = new LinkedHashSet<>();
			for (int below = level + 1; below <= bottom; below++) {
				overriding.addAll(overriding(chain.get(level), chain.get(below), names.get(below)));
			}
			names.set(level, overriding.isEmpty() ? Set.of() : aliases(chain.get(level), overriding));
		}
		if (!names.get(0).isEmpty()) {
			return quoted + " (@" + chain.get(0).getSimpleName() + "'s '" + rootAttribute(names.get(0)) + "')";
		}
		// The value is in the nearest annotation that sets it, as declared on the type above it.
		int setter = bottom;
		for (int level = 1; level < bottom; level++) {
			if (!names.get(level).isEmpty()) {
				setter = level;
				break;
			}
		}
		return quoted + " (declared on @" + chain.get(setter - 1).getSimpleName() + ")";
	}

	/** The root's attribute the user wrote, when several mirror one another. */
	private String rootAttribute(Set<String> names) {
		MergedAnnotation<?> root = this.merged.getRoot();
		return names.stream().filter(root::hasNonDefaultValue).findFirst().orElse(names.iterator().next());
	}

	private static String source(MergedAnnotation<?> annotation) {
		if (annotation.getDistance() == 0) {
			return "directly";
		}
		List<Class<? extends Annotation>> chain = chain(annotation);
		StringBuilder source = new StringBuilder("from @").append(chain.get(0).getSimpleName());
		for (int level = 1; level < chain.size() - 1; level++) {
			source.append(" via @").append(chain.get(level).getSimpleName());
		}
		return source.toString();
	}

	/** The annotation types from the one on the method down to {@code @DistributedLock}. */
	private static List<Class<? extends Annotation>> chain(MergedAnnotation<?> annotation) {
		List<Class<? extends Annotation>> chain = new ArrayList<>();
		for (MergedAnnotation<?> level = annotation; level != null; level = level.getMetaSource()) {
			chain.add(0, level.getType());
		}
		return chain;
	}

	/**
	 * The attributes of {@code composed} that override one of {@code names} of {@code meta}
	 * with {@code @AliasFor(annotation = meta.class, attribute = ...)}.
	 */
	private static Set<String> overriding(Class<? extends Annotation> composed, Class<? extends Annotation> meta,
			Set<String> names) {
		Set<String> overriding = new LinkedHashSet<>();
		for (Method candidate : composed.getDeclaredMethods()) {
			AliasFor alias = candidate.getAnnotation(AliasFor.class);
			if (alias != null && alias.annotation() == meta && names.contains(target(alias, candidate))) {
				overriding.add(candidate.getName());
			}
		}
		return overriding;
	}

	/** {@code names} and the attributes of {@code type} that mirror them ({@code key} and {@code value}). */
	private static Set<String> aliases(Class<? extends Annotation> type, Set<String> names) {
		Set<String> all = new LinkedHashSet<>(names);
		for (Method candidate : type.getDeclaredMethods()) {
			AliasFor alias = candidate.getAnnotation(AliasFor.class);
			boolean local = alias != null && (alias.annotation() == Annotation.class || alias.annotation() == type);
			if (local && names.contains(target(alias, candidate))) {
				all.add(candidate.getName());
			}
			if (local && names.contains(candidate.getName())) {
				all.add(target(alias, candidate));
			}
		}
		return all;
	}

	private static String target(AliasFor alias, Method declaringMethod) {
		String target = alias.attribute().isEmpty() ? alias.value() : alias.attribute();
		return target.isEmpty() ? declaringMethod.getName() : target;
	}

}

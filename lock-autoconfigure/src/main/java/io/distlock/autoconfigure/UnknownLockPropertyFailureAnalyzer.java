package io.distlock.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.annotation.Order;

/**
 * Explains a startup failure caused by an unknown {@code distlock.*} property (they are rejected,
 * as a misspelt one would otherwise be ignored without a word), naming the known property closest
 * to each, so that {@code distlock.wiat-time} is answered with {@code distlock.wait-time}. Runs
 * before Spring Boot's analyzer of unbound properties, which says only that they were left
 * unbound.
 */
@Order(0)
class UnknownLockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

	private static final String PREFIX = "distlock.";

	private static final List<String> KNOWN = known(PREFIX, DistlockProperties.class);

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
		List<ConfigurationProperty> unknown = cause.getUnboundProperties()
			.stream()
			.filter((property) -> property.getName().toString().startsWith(PREFIX))
			.sorted(Comparator.comparing((property) -> property.getName().toString()))
			.toList();
		if (unknown.isEmpty()) {
			return null;
		}
		StringBuilder description = new StringBuilder("Unknown distlock properties:\n");
		StringBuilder action = new StringBuilder();
		for (ConfigurationProperty property : unknown) {
			String name = property.getName().toString();
			description.append("\n    Property: ").append(name);
			description.append("\n    Value: \"").append(property.getValue()).append('"');
			if (property.getOrigin() != null) {
				description.append("\n    Origin: ").append(property.getOrigin());
			}
			description.append('\n');
			String closest = closest(name);
			action.append((closest != null) ? "Replace '" + name + "' with '" + closest + "'.\n"
					: "Remove '" + name + "'.\n");
		}
		action.append("Every distlock property is in the configuration metadata (IDE completion) and in the "
				+ "project's docs/configuration.md.");
		return new FailureAnalysis(description.toString().stripTrailing(), action.toString(), cause);
	}

	/**
	 * Return the known property closest to a misspelt one, or {@code null} when none is close
	 * enough to be the one meant.
	 */
	static String closest(String name) {
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String known : KNOWN) {
			int distance = distance(name, known);
			if (distance < bestDistance) {
				best = known;
				bestDistance = distance;
			}
		}
		int tolerated = Math.max(2, name.substring(PREFIX.length()).length() / 3);
		return (bestDistance <= tolerated) ? best : null;
	}

	/**
	 * Return the names of the properties of a {@code @ConfigurationProperties} class and of its
	 * nested groups, as they are written in configuration ({@code distlock.local-handoff.max-time}).
	 */
	private static List<String> known(String prefix, Class<?> type) {
		List<String> names = new ArrayList<>();
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			Class<?> propertyType = descriptor.getPropertyType();
			String name = prefix + dashed(descriptor.getName());
			if (descriptor.getWriteMethod() != null) {
				names.add(name);
			}
			else if (propertyType != null && propertyType.getDeclaringClass() == DistlockProperties.class
					&& !propertyType.isEnum()) {
				names.addAll(known(name + ".", propertyType));
			}
		}
		return names;
	}

	private static String dashed(String camelCase) {
		return camelCase.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	/** The Levenshtein distance: how many characters to insert, delete or replace. */
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int replace = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(replace, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}

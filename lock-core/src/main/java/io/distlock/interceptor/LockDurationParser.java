package io.distlock.interceptor;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the duration attributes of {@code @DistributedLock}: simple values such as
 * {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 1d} ({@code ns} and {@code us} too;
 * a bare number means milliseconds, as in Spring Boot) and ISO-8601 values such as
 * {@code PT2S}.
 */
final class LockDurationParser {

	private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-z]*)$");

	private LockDurationParser() {
	}

	/**
	 * Parse a duration.
	 * @throws IllegalArgumentException if the text is not a duration
	 */
	static Duration parse(String text) {
		String value = text.trim();
		String upper = value.toUpperCase(Locale.ROOT);
		// As java.time.Duration.parse and Spring Boot's DurationStyle: an optional sign before the P.
		if (upper.startsWith("P") || upper.startsWith("-P") || upper.startsWith("+P")) {
			try {
				return Duration.parse(value);
			}
			catch (DateTimeParseException ex) {
				throw new IllegalArgumentException("is not an ISO-8601 duration", ex);
			}
		}
		Matcher matcher = SIMPLE.matcher(value.toLowerCase(Locale.ROOT));
		if (!matcher.matches()) {
			throw new IllegalArgumentException("is not a duration (write it as 500ms, 2s, 5m or PT2S)");
		}
		long amount = Long.parseLong(matcher.group(1));
		return Duration.of(amount, unit(matcher.group(2)));
	}

	private static ChronoUnit unit(String suffix) {
		return switch (suffix) {
			case "ns" -> ChronoUnit.NANOS;
			case "us" -> ChronoUnit.MICROS;
			case "", "ms" -> ChronoUnit.MILLIS;
			case "s" -> ChronoUnit.SECONDS;
			case "m" -> ChronoUnit.MINUTES;
			case "h" -> ChronoUnit.HOURS;
			case "d" -> ChronoUnit.DAYS;
			default -> throw new IllegalArgumentException(
					"has an unknown unit '" + suffix + "' (use ns, us, ms, s, m, h or d)");
		};
	}

}

package io.batchconsumer.core.options;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The bounds of {@link OptionDescriptor}s, each a function from a value to what is wrong with it,
 * and the conversion of a value as written (annotation text, a bound number) to an option's type.
 */
public final class OptionBounds {

	private OptionBounds() {
	}

	/**
	 * A bound of one option.
	 * @param <T> the type of the value
	 */
	@FunctionalInterface
	interface Check<T> {

		/**
		 * What is wrong with a value.
		 * @param value the value
		 * @return the reason without the option's name, or {@code null} when it is allowed
		 */
		String problem(T value);

	}

	static Object convert(OptionDescriptor<?> option, Object raw) {
		Class<?> type = option.type();
		if (raw == null && type == List.class) {
			return List.of(); // a list property bound empty reads as unset: no element
		}
		if (raw == null || type.isInstance(raw)) {
			return raw;
		}
		if (raw instanceof Number number && type == Long.class) {
			return number.longValue();
		}
		if (raw instanceof Number number && type == Double.class) {
			return number.doubleValue();
		}
		if (raw instanceof String text) {
			return parse(option, text);
		}
		throw option.invalid("must be a " + type.getSimpleName() + " but was '" + raw + "'");
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static Object parse(OptionDescriptor<?> option, String text) {
		Class<?> type = option.type();
		if (type == Integer.class) {
			try {
				return Integer.parseInt(text.trim());
			}
			catch (NumberFormatException ex) {
				throw option.invalid("must be a whole number but was '" + text + "'");
			}
		}
		if (type == Boolean.class) {
			String value = text.trim().toLowerCase(Locale.ROOT);
			if (!value.equals("true") && !value.equals("false")) {
				throw option.invalid("must be true or false but was '" + text + "'");
			}
			return Boolean.parseBoolean(value);
		}
		if (type.isEnum()) {
			return Enums.parse((Class) type, option.key(), text);
		}
		throw option.invalid("must be a " + type.getSimpleName() + " but was '" + text + "'");
	}

	static <T> String set(T value) {
		return (value != null) ? null : "must be set";
	}

	static <N extends Number> Check<N> between(long min, long max) {
		return (value) -> (value != null && value.longValue() >= min && value.longValue() <= max) ? null
				: "must be between " + min + " and " + max + " but was " + value;
	}

	static Check<Double> between(double min, double max) {
		return (value) -> (value != null && value >= min && value <= max) ? null
				: "must be between " + min + " and " + max + " but was " + value;
	}

	static String notNegative(Duration value) {
		return (value != null && !value.isNegative()) ? null : "must be zero or more but was " + value;
	}

	static String positive(Duration value) {
		return (value != null && !value.isNegative() && !value.isZero()) ? null : "must be more than zero but was " + value;
	}

	static String id(String id) {
		return (id != null && id.matches("[A-Za-z0-9._-]+")) ? null
				: "must be letters, digits, '.', '_' or '-' but was '" + id + "'";
	}

	static String topics(List<String> topics) {
		return (topics != null && !topics.isEmpty() && topics.stream().noneMatch((t) -> t == null || t.isBlank()))
				? null : "must name at least one topic, none blank, but was " + topics;
	}

	static String levels(String levels) {
		try {
			parseLevels(levels);
			return null;
		}
		catch (IllegalArgumentException ex) {
			return ex.getMessage();
		}
	}

	/**
	 * Parses back-off levels: durations separated by commas, each a number and a unit
	 * ({@code ms}, {@code s}, {@code m}, {@code h}, {@code d}).
	 * @param levels the text, empty for none
	 * @return the durations, in order
	 */
	public static List<Duration> parseLevels(String levels) {
		List<Duration> parsed = new java.util.ArrayList<>();
		if (levels == null || levels.isBlank()) {
			return parsed;
		}
		for (String part : levels.split(",")) {
			java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)").matcher(part.trim());
			if (!m.matches()) {
				throw new IllegalArgumentException("must be durations separated by commas (1s,5s,10s,30s,1m,2m) but '"
						+ part.trim() + "' is not one");
			}
			long n = Long.parseLong(m.group(1));
			parsed.add(switch (m.group(2)) {
				case "ms" -> Duration.ofMillis(n);
				case "s" -> Duration.ofSeconds(n);
				case "m" -> Duration.ofMinutes(n);
				case "h" -> Duration.ofHours(n);
				default -> Duration.ofDays(n);
			});
		}
		return parsed;
	}

	/**
	 * Checks that each name is a class of {@code Throwable} that the context class loader (or this
	 * library's) finds; {@code null} reads as none.
	 */
	static String throwableClasses(List<String> names) {
		if (names == null) {
			return null;
		}
		for (String name : names) {
			String problem = ThrowableTypes.problem(name);
			if (problem != null) {
				return problem;
			}
		}
		return null;
	}

	static String group(String group) {
		return (group != null && !group.isBlank()) ? null : "must not be blank";
	}

}

package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;

/**
 * The bounds of {@link ContainerOption}s, each a function from a value to what is wrong with it.
 */
final class OptionChecks {

	private OptionChecks() {
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

	static String id(String id) {
		return (id != null && id.matches("[A-Za-z0-9._-]+")) ? null
				: "must be letters, digits, '.', '_' or '-' but was '" + id + "'";
	}

	static String topics(List<String> topics) {
		return (topics != null && !topics.isEmpty() && topics.stream().noneMatch((t) -> t == null || t.isBlank()))
				? null : "must name at least one topic, none blank, but was " + topics;
	}

	static String group(String group) {
		return (group != null && !group.isBlank()) ? null : "must not be blank";
	}

}

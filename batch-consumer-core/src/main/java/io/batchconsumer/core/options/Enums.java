package io.batchconsumer.core.options;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import io.batchconsumer.core.InvalidOptionException;

/**
 * Parses the lower-case spelling of an enum, as it is written in properties ({@code exactly-once} for
 * {@code EXACTLY_ONCE}), and names the allowed values in that same spelling when a value is not one.
 */
public final class Enums {

	private Enums() {
	}

	public static <E extends Enum<E>> E parse(Class<E> type, String option, String value) {
		String allowed = Arrays.stream(type.getEnumConstants())
			.map(Enums::spelling)
			.collect(Collectors.joining(", "));
		if (value == null || value.isBlank()) {
			throw new InvalidOptionException(option, "must be one of " + allowed + " but was empty");
		}
		try {
			return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOptionException(option, "must be one of " + allowed + " but was '" + value + "'");
		}
	}

	/**
	 * The spelling of a constant in properties and docs.
	 * @param constant the constant
	 * @return its name in lower case with dashes
	 */
	static String spelling(Enum<?> constant) {
		return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}

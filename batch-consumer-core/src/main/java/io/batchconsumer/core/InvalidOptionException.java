package io.batchconsumer.core;

import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A container option has a value that is not allowed. It carries the option's key as data
 * ({@link #option()}, spelled like the properties: {@code thread-size},
 * {@code flow-control.max-span}) and the reason apart from it, so that a caller can name the full
 * property or annotation attribute the value came from without parsing the message. A reason that
 * names other options ({@code retry.max-backoff}'s names {@code retry.backoff}) carries their keys,
 * and {@link #reason(UnaryOperator)} names them the caller's way too.
 */
public class InvalidOptionException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String option;

	private final String reason;

	private final List<String> mentioned;

	/**
	 * Creates the exception; its message is {@code "<option> <reason>"}.
	 * @param option the option key, for example {@code thread-size}
	 * @param reason what is wrong, for example {@code must be between 1 and 10000 but was 0}
	 */
	public InvalidOptionException(String option, String reason) {
		this(option, reason, List.of());
	}

	/**
	 * Creates the exception for a reason that names other options by their keys.
	 * @param option the option key
	 * @param reason what is wrong, naming the other options by their keys
	 * @param mentioned the keys of the other options the reason names
	 */
	public InvalidOptionException(String option, String reason, List<String> mentioned) {
		super(option + " " + reason);
		this.option = option;
		this.reason = reason;
		this.mentioned = List.copyOf(mentioned);
	}

	/**
	 * The key of the option whose value is bad.
	 * @return the key, for example {@code retry.multiplier}
	 */
	public String option() {
		return this.option;
	}

	/**
	 * What is wrong with the value, without the option's name.
	 * @return the reason, for example {@code must be between 1.0 and 100.0 but was 0.5}
	 */
	public String reason() {
		return this.reason;
	}

	/**
	 * The reason with each option it names (its whole key, not a part of a longer one) named by the
	 * caller, for example by its full property.
	 * @param naming the caller's name of an option key
	 * @return the reason so named
	 */
	public String reason(UnaryOperator<String> naming) {
		if (this.mentioned.isEmpty()) {
			return this.reason;
		}
		String keys = this.mentioned.stream()
			.sorted(Comparator.comparingInt(String::length).reversed())
			.map(Pattern::quote)
			.collect(Collectors.joining("|"));
		Matcher matcher = Pattern.compile("(?<![\\w.-])(" + keys + ")(?![\\w-])").matcher(this.reason);
		return matcher.replaceAll((match) -> Matcher.quoteReplacement(naming.apply(match.group(1))));
	}

}

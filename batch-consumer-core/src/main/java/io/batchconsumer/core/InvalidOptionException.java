package io.batchconsumer.core;

/**
 * A container option has a value that is not allowed. It carries the option's key as data
 * ({@link #option()}, spelled like the properties: {@code thread-size},
 * {@code flow-control.max-span}) and the reason apart from it, so that a caller can name the full
 * property or annotation attribute the value came from without parsing the message.
 */
public class InvalidOptionException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String option;

	private final String reason;

	/**
	 * Creates the exception; its message is {@code "<option> <reason>"}.
	 * @param option the option key, for example {@code thread-size}
	 * @param reason what is wrong, for example {@code must be between 1 and 10000 but was 0}
	 */
	public InvalidOptionException(String option, String reason) {
		super(option + " " + reason);
		this.option = option;
		this.reason = reason;
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

}

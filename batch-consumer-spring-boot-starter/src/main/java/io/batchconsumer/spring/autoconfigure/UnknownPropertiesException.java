package io.batchconsumer.spring.autoconfigure;

import java.util.List;

/**
 * Start-up found {@code batch-consumer.*} names that nothing declares; {@link #problems()} has one
 * line per name, with the closest valid name and where it was written.
 */
public class UnknownPropertiesException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final List<String> problems;

	/**
	 * Creates the exception.
	 * @param problems one line per unknown name
	 */
	public UnknownPropertiesException(List<String> problems) {
		super("Unknown batch-consumer configuration:" + System.lineSeparator() + " - "
				+ String.join(System.lineSeparator() + " - ", problems));
		this.problems = List.copyOf(problems);
	}

	/**
	 * What is wrong, one line per unknown name.
	 * @return the lines
	 */
	public List<String> problems() {
		return this.problems;
	}

}

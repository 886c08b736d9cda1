package io.batchconsumer.core;

import io.batchconsumer.core.options.Enums;

/**
 * How the instances of a group share a topic.
 */
public enum ConsumptionMode {

	/** Each partition is consumed by one instance of the group at a time. */
	CLUSTERING,

	/** Every instance consumes every partition and keeps its own offsets. */
	BROADCAST;

	/**
	 * Parses {@code clustering} or {@code broadcast}, in any case.
	 * @param value the text
	 * @return the mode
	 * @throws IllegalArgumentException naming the allowed values
	 */
	public static ConsumptionMode parse(String value) {
		return Enums.parse(ConsumptionMode.class, "mode", value);
	}

}

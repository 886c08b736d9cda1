package io.batchconsumer.core;

import io.batchconsumer.core.options.Enums;

/**
 * What a listener's database side effects are promised: {@code at-least-once} (the default) or
 * {@code exactly-once} (its writes and its messages' completion marks commit in one database
 * transaction, and a marked message is never handed to it again).
 */
public enum Processing {

	/** A message may be delivered again after a crash or a rebalance; the listener must be idempotent. */
	AT_LEAST_ONCE,

	/** The listener's writes and the completion marks commit together; see {@code docs/exactly-once.md}. */
	EXACTLY_ONCE;

	/**
	 * Parses {@code at-least-once} or {@code exactly-once}, in any case.
	 * @param value the text
	 * @return the processing
	 * @throws IllegalArgumentException naming the allowed values
	 */
	public static Processing parse(String value) {
		return Enums.parse(Processing.class, "processing", value);
	}

}

package io.batchconsumer.core;

import io.batchconsumer.core.options.Enums;

/**
 * Which order a container keeps between the messages of a partition.
 */
public enum Ordering {

	/** Slices are consecutive chunks; any slice on any thread. */
	UNORDERED,

	/** Messages with the same key are processed one after the other in offset order; keyless ones are unordered. */
	KEY,

	/** One slice at a time per partition; parallelism comes from partitions. */
	PARTITION;

	/**
	 * Parses {@code unordered}, {@code key} or {@code partition}, in any case.
	 * @param value the text
	 * @return the ordering
	 * @throws IllegalArgumentException naming the allowed values
	 */
	public static Ordering parse(String value) {
		return Enums.parse(Ordering.class, "ordering", value);
	}

}

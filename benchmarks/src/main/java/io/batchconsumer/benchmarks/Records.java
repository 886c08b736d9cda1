package io.batchconsumer.benchmarks;

import java.nio.ByteBuffer;

/**
 * The records every scenario uses: a value of fixed size whose first 8 bytes are the record's
 * index, and a key from a fixed set. The index ties a processed record back to its work and to the
 * tally, whatever the transport numbers it.
 */
public final class Records {

	private Records() {
	}

	/**
	 * The value of record {@code index}.
	 * @param index the index
	 * @param size the value size, at least 8
	 * @return the bytes
	 */
	public static byte[] value(long index, int size) {
		byte[] bytes = new byte[Math.max(8, size)];
		ByteBuffer.wrap(bytes).putLong(0, index);
		return bytes;
	}

	/**
	 * The index carried by a value.
	 * @param value a value made by {@link #value}
	 * @return the index
	 */
	public static long index(byte[] value) {
		return ByteBuffer.wrap(value).getLong(0);
	}

	/**
	 * The key of record {@code index}.
	 * @param index the index
	 * @param keys distinct keys
	 * @return {@code k<index % keys>}
	 */
	public static String key(long index, int keys) {
		return "k" + (index % keys);
	}

}

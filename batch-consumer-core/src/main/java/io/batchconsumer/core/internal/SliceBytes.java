package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.batchconsumer.core.Message;

/**
 * Slices bounded by bytes as well as by count ({@code consumer-batch-max-bytes}): messages are
 * packed in offset order into slices of at most {@code count} messages and {@code maxBytes} bytes;
 * a message larger than the bound comes alone.
 *
 * <p>Threading: stateless; a {@link Packing} belongs to one scan.
 */
final class SliceBytes {

	private SliceBytes() {
	}

	/**
	 * A test for {@link PartitionState#leading} that passes the messages from the head that fit into
	 * {@code slices} packed slices.
	 * @param slices the most slices
	 * @param count the most messages of a slice
	 * @param maxBytes the most bytes of a slice
	 * @return a test for one scan of the buffer
	 */
	static Predicate<Message<byte[]>> packing(int slices, int count, long maxBytes) {
		Packing packing = new Packing(count, maxBytes);
		return (message) -> packing.add(message) < slices;
	}

	/**
	 * Consecutive slices of at most {@code count} messages and {@code maxBytes} bytes, in order.
	 * @param run the messages
	 * @param count the most messages of a slice
	 * @param maxBytes the most bytes of a slice
	 * @return the slices
	 */
	static List<List<Message<byte[]>>> pack(List<Message<byte[]>> run, int count, long maxBytes) {
		List<List<Message<byte[]>>> parts = new ArrayList<>();
		Packing packing = new Packing(count, maxBytes);
		int from = 0;
		for (int i = 0; i < run.size(); i++) {
			int before = packing.slice;
			if (packing.add(run.get(i)) != before && i > from) {
				parts.add(run.subList(from, i));
				from = i;
			}
		}
		if (from < run.size()) {
			parts.add(run.subList(from, run.size()));
		}
		return parts;
	}

	/**
	 * Splits every part that is over {@code maxBytes} into consecutive slices that are not, in order
	 * (the slices of one key chain through the key gate, as {@link SliceSplitter#atMost} does).
	 * @param parts the parts
	 * @param maxBytes the most bytes of a slice
	 * @return the bounded slices
	 */
	static List<List<Message<byte[]>>> atMost(List<List<Message<byte[]>>> parts, long maxBytes) {
		List<List<Message<byte[]>>> bounded = new ArrayList<>(parts.size());
		for (List<Message<byte[]>> part : parts) {
			bounded.addAll(pack(part, Integer.MAX_VALUE, maxBytes));
		}
		return bounded;
	}

	/** Greedy packing in offset order: which slice, counted from 0, each message added lands in. */
	private static final class Packing {

		private final int count;

		private final long maxBytes;

		private int slice;

		private int inSlice;

		private long bytes;

		Packing(int count, long maxBytes) {
			this.count = count;
			this.maxBytes = maxBytes;
		}

		int add(Message<byte[]> message) {
			int size = message.serializedSize();
			if (this.inSlice > 0 && (this.inSlice >= this.count || this.bytes + size > this.maxBytes)) {
				this.slice++;
				this.inSlice = 0;
				this.bytes = 0;
			}
			this.inSlice++;
			this.bytes += size;
			return this.slice;
		}

	}

}

package io.batchconsumer.rocketmq;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.common.message.Message;

/**
 * Splits a list of messages into batches that RocketMQ accepts in one send: at most
 * {@link #MAX_BATCH_BYTES} (RocketMQ's default {@code maxMessageSize}, 4 MiB) each, counted as
 * RocketMQ's own batch example counts them (topic, body, properties and a 20-byte log overhead).
 * A message bigger than the limit by itself gets a batch of its own (the broker refuses it, and
 * only that message fails).
 *
 * <p>Threading: stateless.
 */
final class BatchSplitter {

	/** The batch limit in bytes. */
	static final int MAX_BATCH_BYTES = 4 * 1024 * 1024;

	private static final int LOG_OVERHEAD = 20;

	private BatchSplitter() {
	}

	/**
	 * Splits the indexes of the messages into batches, keeping the order.
	 * @param messages the messages
	 * @param maxBytes the limit per batch
	 * @return lists of indexes into {@code messages}
	 */
	static List<List<Integer>> split(List<Message> messages, int maxBytes) {
		List<List<Integer>> batches = new ArrayList<>();
		List<Integer> current = new ArrayList<>();
		long bytes = 0;
		for (int index = 0; index < messages.size(); index++) {
			long size = size(messages.get(index));
			if (!current.isEmpty() && bytes + size > maxBytes) {
				batches.add(current);
				current = new ArrayList<>();
				bytes = 0;
			}
			current.add(index);
			bytes += size;
		}
		if (!current.isEmpty()) {
			batches.add(current);
		}
		return batches;
	}

	/**
	 * The bytes a message takes in a batch.
	 * @param message the message
	 * @return its size
	 */
	static long size(Message message) {
		long size = message.getTopic().length() + ((message.getBody() != null) ? message.getBody().length : 0);
		for (Map.Entry<String, String> property : message.getProperties().entrySet()) {
			size += property.getKey().length() + property.getValue().length();
		}
		return size + LOG_OVERHEAD;
	}

}

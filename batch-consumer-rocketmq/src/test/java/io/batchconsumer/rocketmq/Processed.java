package io.batchconsumer.rocketmq;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;

/**
 * A listener that records what it processed: payloads (distinct and total) and the partitions it saw.
 *
 * <p>Threading: thread-safe (concurrent collections), called by the container's workers.
 */
final class Processed implements SliceListener {

	private final Set<String> payloads = ConcurrentHashMap.newKeySet();

	private final Map<TopicPartition, Boolean> partitions = new ConcurrentHashMap<>();

	private final AtomicLong total = new AtomicLong();

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) {
		for (Message<byte[]> message : slice) {
			this.payloads.add(new String(message.payload(), StandardCharsets.UTF_8));
			this.partitions.put(message.topicPartition(), Boolean.TRUE);
			this.total.incrementAndGet();
		}
		return BatchResult.success();
	}

	long distinct() {
		return this.payloads.size();
	}

	long total() {
		return this.total.get();
	}

	Set<String> payloads() {
		return Set.copyOf(this.payloads);
	}

	Set<TopicPartition> partitions() {
		return Set.copyOf(this.partitions.keySet());
	}

}

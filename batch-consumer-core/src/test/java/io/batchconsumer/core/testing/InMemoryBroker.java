package io.batchconsumer.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;

/**
 * An in-memory log store for engine tests: topics of partitions of messages, and committed
 * offsets per group. Thread-safe; every method is synchronized or works on concurrent maps.
 */
public final class InMemoryBroker {

	private final Map<TopicPartition, List<Message<byte[]>>> logs = new ConcurrentHashMap<>();

	private final Map<String, Map<TopicPartition, Long>> committed = new ConcurrentHashMap<>();

	private final List<BiConsumer<TopicPartition, Long>> commitObservers = new CopyOnWriteArrayList<>();

	/** Creates a topic with empty partitions. */
	public void createTopic(String topic, int partitions) {
		for (int i = 0; i < partitions; i++) {
			this.logs.putIfAbsent(new TopicPartition(topic, i), Collections.synchronizedList(new ArrayList<>()));
		}
	}

	/** Appends a message and returns its offset. */
	public long append(String topic, int partition, String key, String payload) {
		return append(topic, partition, key, payload.getBytes(StandardCharsets.UTF_8));
	}

	public long append(String topic, int partition, String key, byte[] payload) {
		List<Message<byte[]>> log = log(new TopicPartition(topic, partition));
		synchronized (log) {
			long offset = log.size();
			log.add(Message.raw(topic, partition, offset, key, payload, Map.of(), System.currentTimeMillis()));
			return offset;
		}
	}

	public List<TopicPartition> partitions(String topic) {
		return this.logs.keySet().stream().filter((tp) -> tp.topic().equals(topic)).sorted().toList();
	}

	public List<Message<byte[]>> log(TopicPartition partition) {
		List<Message<byte[]>> log = this.logs.get(partition);
		if (log == null) {
			throw new IllegalArgumentException("no partition " + partition);
		}
		return log;
	}

	/** Up to {@code max} messages from {@code offset}. */
	public List<Message<byte[]>> read(TopicPartition partition, long offset, int max) {
		List<Message<byte[]>> log = log(partition);
		synchronized (log) {
			int from = (int) Math.min(offset, log.size());
			return new ArrayList<>(log.subList(from, Math.min(log.size(), from + max)));
		}
	}

	public long endOffset(TopicPartition partition) {
		return log(partition).size();
	}

	public long committed(String group, TopicPartition partition) {
		return this.committed.getOrDefault(group, Map.of()).getOrDefault(partition, 0L);
	}

	public void commit(String group, TopicPartition partition, long offset) {
		for (BiConsumer<TopicPartition, Long> observer : this.commitObservers) {
			observer.accept(partition, offset);
		}
		this.committed.computeIfAbsent(group, (g) -> new ConcurrentHashMap<>()).put(partition, offset);
	}

	/** Told of every commit before it is stored. */
	public void onCommit(BiConsumer<TopicPartition, Long> observer) {
		this.commitObservers.add(observer);
	}

	/** Whether every partition of the topic is committed to its end. */
	public boolean isFullyCommitted(String group, String topic) {
		return partitions(topic).stream().allMatch((tp) -> committed(group, tp) == endOffset(tp));
	}

}

package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a topic from its beginning to the end offsets it had when the read started, with a
 * consumer that has no group: the dead-letter topics and their {@code .replayed} marks. A topic
 * that does not exist reads as empty. A partition is assigned before its end offset is asked for,
 * so that the client keeps the answer instead of warning that the partition is not assigned.
 *
 * <p>Threading: not thread-safe (a Kafka consumer); {@link SharedDeadLetterReader} hands it to one
 * thread at a time.
 */
final class DeadLetterReader implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final Duration POLL = Duration.ofMillis(200);

	private final KafkaConsumer<String, byte[]> consumer;

	DeadLetterReader(Map<String, Object> config) {
		this.consumer = new KafkaConsumer<>(config);
	}

	/**
	 * Hands every record of the topic to the visitor, partition by partition in offset order.
	 * @param topic the topic
	 * @param visitor takes each record
	 * @throws IllegalStateException when the end is not reached within 10 s
	 */
	void readAll(String topic, Consumer<ConsumerRecord<String, byte[]>> visitor) {
		for (TopicPartition partition : partitions(topic)) {
			this.consumer.assign(List.of(partition));
			long end = this.consumer.endOffsets(List.of(partition), TIMEOUT).get(partition);
			this.consumer.seekToBeginning(List.of(partition));
			readUntil(partition, end, visitor);
		}
	}

	/**
	 * The record at one offset.
	 * @param partition the partition
	 * @param offset the offset
	 * @return the record, or {@code null} when the topic, partition or offset does not exist
	 */
	ConsumerRecord<String, byte[]> read(TopicPartition partition, long offset) {
		if (!partitions(partition.topic()).contains(partition)) {
			return null;
		}
		this.consumer.assign(List.of(partition));
		long end = this.consumer.endOffsets(List.of(partition), TIMEOUT).get(partition);
		if (offset >= end || offset < 0) {
			return null;
		}
		this.consumer.seek(partition, offset);
		ConsumerRecord<String, byte[]>[] found = new ConsumerRecord[1];
		readUntil(partition, offset + 1, (record) -> {
			if (record.offset() == offset) {
				found[0] = record;
			}
		});
		return found[0];
	}

	private List<TopicPartition> partitions(String topic) {
		Map<String, List<PartitionInfo>> topics = this.consumer.listTopics(TIMEOUT);
		List<PartitionInfo> infos = topics.get(topic);
		if (infos == null) {
			return List.of();
		}
		return infos.stream().map((info) -> new TopicPartition(topic, info.partition()))
			.sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
			.toList();
	}

	private void readUntil(TopicPartition partition, long end, Consumer<ConsumerRecord<String, byte[]>> visitor) {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (this.consumer.position(partition, TIMEOUT) < end) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Reading " + partition + " up to offset " + end + " took more than "
						+ TIMEOUT);
			}
			for (ConsumerRecord<String, byte[]> record : this.consumer.poll(POLL)) {
				if (record.offset() < end) {
					visitor.accept(record);
				}
			}
		}
	}

	@Override
	public void close() {
		this.consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
	}

}

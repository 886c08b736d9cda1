package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the partitions of a retry topic from given offsets to the end offsets they had when the read
 * started, with one consumer that has no group (partitions are assigned, nothing is committed), made
 * when first needed and shared by the transport's retry queues. Reads take turns (a Kafka consumer is
 * not thread-safe) on a consumer of their own, so a container never waits behind a listing of dead
 * letters; a read that fails closes the consumer, so the next one starts from a fresh one.
 *
 * <p>Threading: thread-safe; reads take turns ({@link TurnTakingClient}).
 */
final class RetryTopicReader implements AutoCloseable {

	/** The longest a read may take, whatever the broker does. */
	static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final Duration POLL = Duration.ofMillis(100);

	private final TurnTakingClient<KafkaConsumer<String, byte[]>> consumer;

	/**
	 * @param user the user's consumer properties
	 */
	RetryTopicReader(Map<String, Object> user) {
		Map<String, Object> config = new HashMap<>(KafkaConfigs.deadLetterReader(user));
		config.put(ConsumerConfig.CLIENT_ID_CONFIG, "batch-consumer-retry-keys");
		Map<String, Object> copy = Map.copyOf(config);
		this.consumer = new TurnTakingClient<>(() -> new KafkaConsumer<>(copy),
				(consumer) -> consumer.close(CloseOptions.timeout(Duration.ofSeconds(5))));
	}

	/**
	 * Hands the records of every partition of a topic from its start offset up to the end offset it had
	 * when the read started to the visitor, and returns those end offsets. A partition without a start
	 * offset starts at its beginning, and so does one whose start offset is no longer in the log.
	 * @param topic the topic
	 * @param from the offset each partition starts at, by partition
	 * @param visitor takes each record
	 * @return the end offset of each partition of the topic (none when it does not exist)
	 * @throws IllegalStateException when the transport is closed, or the end is not reached within
	 *         {@link #TIMEOUT}
	 * @throws org.apache.kafka.common.KafkaException when the broker fails
	 */
	Map<Integer, Long> read(String topic, Map<Integer, Long> from, Consumer<ConsumerRecord<String, byte[]>> visitor) {
		return this.consumer.use((consumer) -> readWith(consumer, topic, from, visitor));
	}

	private static Map<Integer, Long> readWith(KafkaConsumer<String, byte[]> consumer, String topic,
			Map<Integer, Long> from, Consumer<ConsumerRecord<String, byte[]>> visitor) {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		List<PartitionInfo> infos = consumer.partitionsFor(topic, TIMEOUT);
		if (infos == null || infos.isEmpty()) {
			return Map.of();
		}
		List<TopicPartition> partitions = infos.stream().map((info) -> new TopicPartition(topic, info.partition()))
			.toList();
		consumer.assign(partitions);
		Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, TIMEOUT);
		for (TopicPartition partition : partitions) {
			Long start = from.get(partition.partition());
			if (start == null) {
				consumer.seekToBeginning(List.of(partition));
			}
			else {
				consumer.seek(partition, Math.min(start, ends.get(partition)));
			}
		}
		while (!reachedEnds(consumer, ends)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Reading " + topic + " up to offsets " + ends + " took more than "
						+ TIMEOUT);
			}
			for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
				if (record.offset() < ends.get(new TopicPartition(record.topic(), record.partition()))) {
					visitor.accept(record);
				}
			}
		}
		Map<Integer, Long> byPartition = new HashMap<>();
		ends.forEach((partition, end) -> byPartition.put(partition.partition(), end));
		return byPartition;
	}

	private static boolean reachedEnds(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> ends) {
		for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
			if (consumer.position(end.getKey(), TIMEOUT) < end.getValue()) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void close() {
		this.consumer.close();
	}

}

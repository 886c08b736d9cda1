package io.batchconsumer.core;

import java.util.Objects;

/**
 * A partition of a topic: a Kafka partition, or a queue of a JDBC topic.
 *
 * @param topic the topic name, never blank
 * @param partition the partition number, zero or more
 */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {

	public TopicPartition {
		Objects.requireNonNull(topic, "topic");
		if (topic.isBlank()) {
			throw new IllegalArgumentException("topic must not be blank");
		}
		if (partition < 0) {
			throw new IllegalArgumentException("partition must be zero or more but was " + partition);
		}
	}

	@Override
	public int compareTo(TopicPartition other) {
		int byTopic = this.topic.compareTo(other.topic);
		return (byTopic != 0) ? byTopic : Integer.compare(this.partition, other.partition);
	}

	@Override
	public String toString() {
		return this.topic + "-" + this.partition;
	}

}

package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Broadcast mode: every instance reads every partition, so there is no group rebalance; the
 * source assigns all partitions of its topics itself ({@code assign}), finds them with
 * {@code partitionsFor}, and looks again now and then for partitions added later (every
 * {@link #RECHECK}; every {@link #SEARCH} while a topic has none, e.g. before it is created).
 *
 * <p>Threading: owned by the owner thread.
 */
final class BroadcastAssignment {

	static final Duration RECHECK = Duration.ofSeconds(30);

	static final Duration SEARCH = Duration.ofSeconds(1);

	private static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(1);

	private final List<String> topics;

	private long nextCheckNanos;

	BroadcastAssignment(List<String> topics, long nowNanos) {
		this.topics = List.copyOf(topics);
		this.nextCheckNanos = nowNanos;
	}

	/**
	 * Looks for partitions when it is time and assigns the new ones with the old.
	 * @param consumer the consumer
	 * @param nowNanos the time
	 * @return the partitions assigned by this call, possibly none
	 */
	List<TopicPartition> refreshIfDue(Consumer<?, ?> consumer, long nowNanos) {
		if (nowNanos - this.nextCheckNanos < 0) {
			return List.of();
		}
		Set<TopicPartition> current = consumer.assignment();
		Set<TopicPartition> found = new HashSet<>(current);
		boolean complete = true;
		for (String topic : this.topics) {
			List<PartitionInfo> infos = lookup(consumer, topic);
			complete &= !infos.isEmpty();
			for (PartitionInfo info : infos) {
				found.add(new TopicPartition(topic, info.partition()));
			}
		}
		this.nextCheckNanos = nowNanos + (complete ? RECHECK : SEARCH).toNanos();
		List<TopicPartition> added = new ArrayList<>();
		for (TopicPartition partition : found) {
			if (!current.contains(partition)) {
				added.add(partition);
			}
		}
		if (!added.isEmpty()) {
			consumer.assign(found);
		}
		return added;
	}

	private static List<PartitionInfo> lookup(Consumer<?, ?> consumer, String topic) {
		try {
			List<PartitionInfo> infos = consumer.partitionsFor(topic, LOOKUP_TIMEOUT);
			return (infos != null) ? infos : List.of();
		}
		catch (TimeoutException | WakeupException ex) {
			return List.of(); // not there yet, or a stray wakeup: look again soon
		}
	}

}

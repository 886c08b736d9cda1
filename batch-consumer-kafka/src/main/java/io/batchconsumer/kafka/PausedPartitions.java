package io.batchconsumer.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions the engine wants paused, kept apart from the consumer's own pause flags.
 *
 * <p>A cooperative rebalance keeps the pause of a retained partition, but an eager one (a user's
 * own assignor) or a manual re-assignment may not; so after every assignment the wanted pauses of
 * partitions still assigned are applied again. A partition that is newly assigned starts
 * unpaused, as the engine starts it; one that is revoked or lost is forgotten.
 *
 * <p>Threading: owned by the owner thread.
 */
final class PausedPartitions {

	private final Set<TopicPartition> wanted = new HashSet<>();

	void pause(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		this.wanted.addAll(partitions);
		List<TopicPartition> assigned = assigned(consumer, partitions);
		if (!assigned.isEmpty()) {
			consumer.pause(assigned);
		}
	}

	void resume(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		this.wanted.removeAll(partitions);
		List<TopicPartition> assigned = assigned(consumer, partitions);
		if (!assigned.isEmpty()) {
			consumer.resume(assigned);
		}
	}

	/** Forgets partitions that came or went: the engine starts a new partition unpaused. */
	void forget(Collection<TopicPartition> partitions) {
		this.wanted.removeAll(partitions);
	}

	/** Pauses again every wanted partition that is assigned and not paused. */
	void reapply(Consumer<?, ?> consumer) {
		if (this.wanted.isEmpty()) {
			return;
		}
		Set<TopicPartition> paused = consumer.paused();
		List<TopicPartition> missing = new ArrayList<>();
		for (TopicPartition partition : assigned(consumer, this.wanted)) {
			if (!paused.contains(partition)) {
				missing.add(partition);
			}
		}
		if (!missing.isEmpty()) {
			consumer.pause(missing);
		}
	}

	Set<TopicPartition> wanted() {
		return Set.copyOf(this.wanted);
	}

	private static List<TopicPartition> assigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		Set<TopicPartition> assignment = consumer.assignment();
		List<TopicPartition> result = new ArrayList<>(partitions.size());
		for (TopicPartition partition : partitions) {
			if (assignment.contains(partition)) {
				result.add(partition);
			}
		}
		return result;
	}

}

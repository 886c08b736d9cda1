package io.batchconsumer.kafka;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.TopicPartition;

/**
 * Which messages of a share-group container went to the dead letter, so that its source
 * acknowledges them with {@code REJECT} (the broker archives them) rather than {@code ACCEPT}.
 * The container's {@link KafkaDeadLetterSink} marks them on workers; the source takes the marks on
 * the owner thread when it acknowledges.
 *
 * <p>Threading: thread-safe.
 */
final class ShareOutcomes {

	private final Set<Mark> deadLettered = ConcurrentHashMap.newKeySet();

	/**
	 * Marks a dead letter that was stored.
	 * @param deadLetter the dead letter
	 */
	void mark(DeadLetter deadLetter) {
		DeadLetter.Origin origin = DeadLetter.Origin.of(deadLetter.message());
		this.deadLettered.add(new Mark(origin.topic(), origin.partition(), origin.offset()));
	}

	/**
	 * Whether the message was dead-lettered; forgets the mark.
	 * @param partition the engine's partition
	 * @param offset the engine's offset of the message
	 * @return whether it went to the dead letter
	 */
	boolean takeDeadLettered(TopicPartition partition, long offset) {
		return !this.deadLettered.isEmpty()
				&& this.deadLettered.remove(new Mark(partition.topic(), partition.partition(), offset));
	}

	private record Mark(String topic, int partition, long offset) {
	}

}

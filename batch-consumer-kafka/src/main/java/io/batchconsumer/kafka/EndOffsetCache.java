package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;

import io.batchconsumer.core.TopicPartition;

/**
 * The end offsets of the assigned partitions for lag meters, fetched every few seconds with a
 * short timeout and cached; never on every poll. A failed fetch keeps the last values.
 *
 * <p>Threading: owned by the owner thread ({@link #refreshIfDue} runs inside the source's poll,
 * {@link #get()} is read by the engine's status publishing, also on the owner thread).
 */
final class EndOffsetCache {

	static final Duration INTERVAL = Duration.ofSeconds(5);

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	private Map<TopicPartition, Long> offsets = Map.of();

	private long nextRefreshNanos;

	void refreshIfDue(Consumer<?, ?> consumer, long nowNanos) {
		if (nowNanos - this.nextRefreshNanos < 0) {
			return;
		}
		this.nextRefreshNanos = nowNanos + INTERVAL.toNanos();
		Set<org.apache.kafka.common.TopicPartition> assignment = consumer.assignment();
		if (assignment.isEmpty()) {
			this.offsets = Map.of();
			return;
		}
		try {
			Map<TopicPartition, Long> fresh = new HashMap<>();
			consumer.endOffsets(assignment, TIMEOUT).forEach((partition, end) -> {
				if (end != null) {
					fresh.put(KafkaRecords.ours(partition), end);
				}
			});
			this.offsets = Map.copyOf(fresh);
		}
		catch (WakeupException ex) {
			this.nextRefreshNanos = nowNanos; // a stray wakeup: try again on the next poll
		}
		catch (KafkaException ex) {
			// Timeouts and the like: lag meters are not worth more than the last values.
		}
	}

	Map<TopicPartition, Long> get() {
		return this.offsets;
	}

}

package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import io.batchconsumer.core.TopicPartition;

/**
 * Decides when to commit and what: at most one commit per {@code commit.interval} (the batch
 * ack), or after each finished batch when the interval is zero, and only partitions whose
 * watermark moved past what was committed.
 *
 * <p>Threading: owned by the owner thread.
 */
final class CommitScheduler {

	private final long intervalNanos;

	private long lastCommitNanos;

	CommitScheduler(Duration interval, long nowNanos) {
		this.intervalNanos = interval.toNanos();
		this.lastCommitNanos = nowNanos;
	}

	boolean isDue(long nowNanos) {
		return nowNanos - this.lastCommitNanos >= this.intervalNanos;
	}

	long nanosUntilDue(long nowNanos) {
		return Math.max(0, this.lastCommitNanos + this.intervalNanos - nowNanos);
	}

	/**
	 * The positions that moved, marked as requested so an asynchronous commit is not sent twice.
	 * @param partitions the partitions to look at
	 * @return next offsets to read, per partition whose watermark passed its committed (or
	 *         requested) position
	 */
	Map<TopicPartition, Long> committable(Collection<PartitionState> partitions) {
		Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
		for (PartitionState partition : partitions) {
			if (partition.hasUncommittedProgress()) {
				long watermark = partition.ledger.watermark();
				partition.commitRequested = watermark;
				offsets.put(partition.partition, watermark);
			}
		}
		return offsets;
	}

	void committed(long nowNanos) {
		this.lastCommitNanos = nowNanos;
	}

}

package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.TopicPartition;

/**
 * Decides when to commit and what, and commits: at most one commit per {@code commit.interval}
 * (the batch ack), or after each finished batch when the interval is zero, and only partitions
 * whose watermark moved past what was committed or requested. Periodic commits are asynchronous;
 * commits on revoke and stop are synchronous.
 *
 * <p>Threading: owned by the owner thread.
 */
final class CommitScheduler {

	private final long intervalNanos;

	private final MessageSource source;

	private final ContainerStatus status;

	private long lastCommitNanos;

	/**
	 * Whether an asynchronous commit awaits its callback. One at a time: the next one carries the
	 * latest watermarks, so commits never queue up at the broker (on Kafka, a commit per finished
	 * batch would pile up behind the group coordinator and widen what a crash delivers again).
	 */
	private boolean inFlight;

	CommitScheduler(Duration interval, MessageSource source, ContainerStatus status, long nowNanos) {
		this.intervalNanos = interval.toNanos();
		this.source = source;
		this.status = status;
		this.lastCommitNanos = nowNanos;
	}

	/** Commits asynchronously what moved, when the interval has passed and no commit is in flight. */
	void commitIfDue(List<PartitionState> states, long nowNanos) {
		if (this.inFlight || !isDue(nowNanos)) {
			return;
		}
		Map<TopicPartition, Long> offsets = committable(states);
		if (!offsets.isEmpty()) {
			this.lastCommitNanos = nowNanos;
			this.inFlight = true;
			this.source.commitAsync(offsets, (committed, error) -> {
				this.inFlight = false;
				this.status.committed(states, committed, error);
			});
		}
	}

	/** Commits what moved and waits; a failure is counted and logged, and tried again later. */
	void commitSync(List<PartitionState> states) {
		Map<TopicPartition, Long> offsets = committable(states);
		if (offsets.isEmpty()) {
			return;
		}
		try {
			this.source.commitSync(offsets);
			this.status.committed(states, offsets, null);
		}
		catch (RuntimeException ex) {
			this.status.committed(states, offsets, ex);
		}
	}

	/** Whether an asynchronous commit awaits its callback. */
	boolean isInFlight() {
		return this.inFlight;
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
	private Map<TopicPartition, Long> committable(Collection<PartitionState> partitions) {
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

}

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

	/**
	 * The last commit of these partitions' epochs (revoke, stop): synchronous, and of every watermark
	 * past the last <em>confirmed</em> position, even when an asynchronous commit of it is still in
	 * flight, since that one may yet fail. A commit interrupted on the owner thread is tried once more
	 * with the flag cleared (Kafka refuses to commit on an interrupted thread), then the flag is set
	 * again. A failure is logged: the next owner of the partition reads from the last stored position.
	 * @param states the partitions
	 */
	void commitFinal(List<PartitionState> states) {
		Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
		for (PartitionState state : states) {
			long watermark = state.ledger.watermark();
			if (watermark > state.committedOffset) {
				state.commitRequested = watermark;
				offsets.put(state.partition, watermark);
			}
		}
		if (offsets.isEmpty()) {
			return;
		}
		boolean interrupted = Thread.interrupted();
		try {
			RuntimeException failure = tryCommitSync(offsets);
			if (failure != null && Thread.interrupted()) {
				interrupted = true;
				failure = tryCommitSync(offsets);
			}
			this.status.committed(states, offsets, failure);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private RuntimeException tryCommitSync(Map<TopicPartition, Long> offsets) {
		try {
			this.source.commitSync(offsets);
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
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

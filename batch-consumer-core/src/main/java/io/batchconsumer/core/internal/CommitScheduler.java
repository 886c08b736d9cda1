package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.TopicPartition;

/**
 * Decides when to commit and what, commits, and takes the outcome. Every commit of the engine goes
 * through it: periodic commits are asynchronous, the final ones (revoke, stop) and a seek's
 * are synchronous.
 *
 * <p>At most one commit per {@code commit.interval} (the batch ack), or after each finished batch
 * when the interval is zero, and only of partitions whose watermark moved past what was committed
 * or requested.
 * One asynchronous commit at a time: the next one carries the latest watermarks, so commits never
 * queue up at the broker (on Kafka, a commit per finished batch would pile up behind the group
 * coordinator and widen what a crash delivers again). With {@code commit.interval=0} a commit is
 * due after each finished batch.
 *
 * <p>Threading: owned by the owner thread; asynchronous outcomes arrive on it too (the source calls
 * back from its own poll or commit).
 */
final class CommitScheduler {

	private static final Logger logger = LoggerFactory.getLogger(CommitScheduler.class);

	private final long intervalNanos;

	private final MessageSource source;

	private final ContainerStatus status;

	private final Counters counters;

	private long lastDueNanos;

	/** Whether an asynchronous commit awaits its callback. */
	private boolean inFlight;

	CommitScheduler(Duration interval, MessageSource source, ContainerStatus status, long nowNanos) {
		this.intervalNanos = interval.toNanos();
		this.source = source;
		this.status = status;
		this.counters = status.counters();
		this.lastDueNanos = nowNanos;
	}

	/**
	 * Commits asynchronously what moved, when the interval passed and no
	 * commit is in flight.
	 * @param states the current partitions
	 * @param nowNanos the time
	 */
	void commitIfDue(List<PartitionState> states, long nowNanos) {
		if (this.inFlight || !isDue(nowNanos)) {
			return;
		}
		Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
		for (PartitionState state : states) {
			if (state.hasUncommittedProgress()) {
				offsets.put(state.partition, state.requestCommit());
			}
		}
		if (!offsets.isEmpty()) {
			this.lastDueNanos = nowNanos;
			this.inFlight = true;
			this.source.commitAsync(offsets, (committed, error) -> {
				this.inFlight = false;
				outcome(states, committed, error);
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
			long position = state.requestFinalCommit();
			if (position >= 0) {
				offsets.put(state.partition, position);
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
			outcome(states, offsets, failure);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A seek's commit of its new position, synchronous; a failure is thrown to the caller of the seek.
	 * @param state the new epoch of the partition
	 * @param offset the position sought
	 */
	void commitSeek(PartitionState state, long offset) {
		Map<TopicPartition, Long> offsets = Map.of(state.partition, offset);
		this.source.commitSync(offsets);
		outcome(List.of(state), offsets, null);
	}

	/** Whether an asynchronous commit awaits its callback. */
	boolean isInFlight() {
		return this.inFlight;
	}

	boolean isDue(long nowNanos) {
		return nowNanos - this.lastDueNanos >= this.intervalNanos;
	}

	/**
	 * How long the owner may block before a commit of these partitions falls due; {@code Long.MAX_VALUE} when nothing is to commit or a
	 * commit is in flight (its callback wakes the owner).
	 * @param states the current partitions
	 * @param nowNanos the time
	 * @return nanoseconds, zero or more
	 */
	long nanosUntilDue(List<PartitionState> states, long nowNanos) {
		if (this.inFlight) {
			return Long.MAX_VALUE;
		}
		long due = Long.MAX_VALUE;
		for (PartitionState state : states) {
			if (state.hasUncommittedProgress()) {
				due = Math.max(0, this.lastDueNanos + this.intervalNanos - nowNanos);
			}
		}
		return due;
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

	/** A failed commit is forgotten (the next carries it again); a confirmed one moves the positions. */
	private void outcome(List<PartitionState> states, Map<TopicPartition, Long> offsets, Throwable error) {
		if (error != null) {
			this.counters.commitsFailed.increment();
			logger.warn("Commit of {} failed; it is tried again: {}", offsets, error.toString());
			for (PartitionState state : states) {
				if (offsets.containsKey(state.partition)) {
					state.failCommit();
				}
			}
			return;
		}
		this.counters.commitsSucceeded.increment();
		for (PartitionState state : states) {
			Long offset = offsets.get(state.partition);
			if (offset != null && state.confirmCommit(offset)) {
				this.status.commitProgressed();
			}
		}
	}

}

package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerState;
import io.batchconsumer.core.ContainerStats;
import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.PartitionStats;
import io.batchconsumer.core.TopicPartition;

/**
 * What the outside sees of a container: its state, counters, last source error, and the
 * statistics snapshot the owner thread publishes.
 *
 * <p>Threading: the owner thread writes; any thread reads. {@code state}, {@code sourceError} and
 * {@code snapshot} are volatile so readers see the latest published value; counters are adders.
 */
public final class ContainerStatus {

	private static final Logger logger = LoggerFactory.getLogger(ContainerStatus.class);

	private static final long PUBLISH_INTERVAL_NANOS = 100_000_000L;

	private final String id;

	private final int threadSize;

	private final Counters counters = new Counters();

	private volatile ContainerState state = ContainerState.CREATED;

	private volatile String sourceError;

	/** Set once by a worker that met a {@link VirtualMachineError}; read by any thread. */
	private volatile String fatalError;

	/** Owner thread only. */
	private long lastCommitProgressMillis = System.currentTimeMillis();

	/** Owner thread only. */
	private long lastPublishNanos;

	private volatile ContainerStats snapshot;

	ContainerStatus(String id, int threadSize) {
		this.id = id;
		this.threadSize = threadSize;
		this.snapshot = build(List.of(), 0, null, false);
	}

	Counters counters() {
		return this.counters;
	}

	ContainerState state() {
		return this.state;
	}

	void state(ContainerState state) {
		this.state = state;
	}

	void sourceError(Throwable error) {
		this.sourceError = (error != null) ? error.getClass().getSimpleName() + ": " + error.getMessage() : null;
	}

	/**
	 * Marks the container unhealthy for good: a worker met a {@link VirtualMachineError}. The first
	 * one is kept. Any thread.
	 */
	void fatal(Throwable error) {
		if (this.fatalError == null) {
			this.fatalError = error.getClass().getName() + ": " + error.getMessage();
		}
	}

	/** Records the outcome of a commit of these partitions' states. Owner thread. */
	void committed(List<PartitionState> states, Map<TopicPartition, Long> offsets, Throwable error) {
		if (error != null) {
			this.counters.commitsFailed.increment();
			logger.warn("Commit of {} failed; it is tried again: {}", offsets, error.toString());
			for (PartitionState state : states) {
				if (offsets.containsKey(state.partition)) {
					state.commitRequested = -1;
				}
			}
			return;
		}
		this.counters.commitsSucceeded.increment();
		for (PartitionState state : states) {
			Long offset = offsets.get(state.partition);
			if (offset != null && offset > state.committedOffset) {
				state.committedOffset = offset;
				this.lastCommitProgressMillis = System.currentTimeMillis();
			}
		}
	}

	void publishIfDue(List<PartitionState> partitions, int busy, MessageSource source, boolean paused) {
		long now = System.nanoTime();
		if (now - this.lastPublishNanos >= PUBLISH_INTERVAL_NANOS) {
			this.lastPublishNanos = now;
			publish(partitions, busy, source, paused);
		}
	}

	void publish(List<PartitionState> partitions, int busy, MessageSource source, boolean paused) {
		this.snapshot = build(partitions, busy, source, paused);
	}

	/**
	 * The last published snapshot, with the live state and counters.
	 * @return the statistics
	 */
	public ContainerStats stats() {
		ContainerStats last = this.snapshot;
		return new ContainerStats(this.id, this.state, last.partitions(), this.threadSize, last.busyThreads(),
				this.counters.flowControlCount.sum(), this.counters.flowControlSize.sum(),
				this.counters.flowControlSpan.sum(), this.counters.succeeded.sum(), this.counters.retried.sum(),
				this.counters.deadLettered.sum(), this.counters.skipped.sum(), this.counters.commitsSucceeded.sum(),
				this.counters.commitsFailed.sum(), last.lastCommitProgressMillis(), this.sourceError,
				last.snapshotMillis(), this.fatalError, this.counters.filtered.sum());
	}

	private ContainerStats build(List<PartitionState> partitions, int busy, MessageSource source, boolean paused) {
		Map<TopicPartition, Long> ends = (source != null) ? source.endOffsets() : Map.of();
		long nowNanos = System.nanoTime();
		List<PartitionStats> stats = new ArrayList<>(partitions.size());
		for (PartitionState p : partitions) {
			long oldest = p.ledger.oldestOpenNanos();
			stats.add(new PartitionStats(p.partition, p.epoch, p.fetchedOffset, p.committedOffset, p.buffered(),
					p.backlog, p.backlogBytes, p.ledger.openBatches(),
					(oldest < 0) ? 0 : (nowNanos - oldest) / 1_000_000, p.flowPaused, p.userPaused || paused,
					ends.getOrDefault(p.partition, -1L)));
		}
		return new ContainerStats(this.id, this.state, stats, this.threadSize, busy, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				this.lastCommitProgressMillis, this.sourceError, System.currentTimeMillis());
	}

}

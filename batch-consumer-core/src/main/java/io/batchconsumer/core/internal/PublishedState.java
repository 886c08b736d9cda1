package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;

/**
 * What the outside sees of a container: its state, counters, last source error, and the
 * statistics snapshot the owner thread publishes.
 *
 * <p>Threading: the owner thread writes; any thread reads. {@code state}, {@code sourceError} and
 * {@code snapshot} are volatile so readers see the latest published value; counters are adders.
 * Workers write {@link OwnWriteFailures}, which is thread-safe.
 */
final class PublishedState {

	private static final long PUBLISH_INTERVAL_NANOS = 100_000_000L;

	private final String id;

	/** Changed by runtime tuning (owner thread), read by any thread. */
	private volatile int threadSize;

	private final Counters counters = new Counters();

	private volatile LifecyclePhase state = LifecyclePhase.CREATED;

	private volatile String sourceError;

	/** The container's own writes (dead letters, retry queue); shown as the source error while they fail. */
	private final OwnWriteFailures ownWrites;

	/** Set once by a worker that met a {@link VirtualMachineError}; read by any thread. */
	private volatile String fatalError;

	private final Ticker ticker;

	/** Owner thread only. */
	private long lastCommitProgressMillis;

	/** Owner thread only. */
	private long lastPublishNanos;

	private volatile ContainerSnapshot snapshot;

	PublishedState(String id, int threadSize) {
		this(id, threadSize, Ticker.SYSTEM);
	}

	PublishedState(String id, int threadSize, Ticker ticker) {
		this.id = id;
		this.threadSize = threadSize;
		this.ticker = ticker;
		this.ownWrites = new OwnWriteFailures(ticker);
		this.lastCommitProgressMillis = ticker.currentTimeMillis();
		this.snapshot = build(List.of(), 0, null, false);
	}

	void threadSize(int threadSize) {
		this.threadSize = threadSize;
	}

	/** The container's time source. */
	Ticker ticker() {
		return this.ticker;
	}

	Counters counters() {
		return this.counters;
	}

	LifecyclePhase state() {
		return this.state;
	}

	void state(LifecyclePhase state) {
		this.state = state;
	}

	OwnWriteFailures ownWrites() {
		return this.ownWrites;
	}

	/** The source error to show: a failed read of the source, else an own write that keeps failing. */
	private String shownSourceError() {
		String read = this.sourceError;
		return (read != null) ? read : this.ownWrites.error();
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

	/** A commit moved a partition's committed position (for the health check). Owner thread. */
	void commitProgressed() {
		this.lastCommitProgressMillis = this.ticker.currentTimeMillis();
	}

	void publishIfDue(List<PartitionState> partitions, int busy, MessageSource source, boolean paused) {
		long now = this.ticker.nanoTime();
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
	public ContainerSnapshot stats() {
		ContainerSnapshot last = this.snapshot;
		long whole = this.counters.batchesWhole.sum();
		return new ContainerSnapshot(this.id, this.state, last.partitions(), this.threadSize, last.busyThreads(),
				this.counters.flowControlCount.sum(), this.counters.flowControlSize.sum(),
				this.counters.flowControlSpan.sum(), this.counters.succeeded.sum(), this.counters.retried.sum(),
				this.counters.deadLettered.sum(), this.counters.skipped.sum(), this.counters.commitsSucceeded.sum(),
				this.counters.commitsFailed.sum(), last.lastCommitProgressMillis(), shownSourceError(),
				last.snapshotMillis(), this.fatalError, this.counters.filtered.sum(), this.counters.queuedForRetry.sum(),
				this.counters.batchesCut.sum() + whole, whole, this.counters.completedBefore.sum(),
				this.counters.heldByRateLimit.sum(), last.keysHeldForRetry(), last.messagesHeldForRetry(),
				this.counters.heldByKeyRateLimit.sum(), this.counters.asyncCallsInFlight.sum());
	}

	private ContainerSnapshot build(List<PartitionState> partitions, int busy, MessageSource source, boolean paused) {
		Map<TopicPartition, Long> ends = (source != null) ? source.endOffsets() : Map.of();
		long nowNanos = this.ticker.nanoTime();
		List<PartitionSnapshot> stats = new ArrayList<>(partitions.size());
		long keysHeld = 0;
		long messagesHeld = 0;
		for (PartitionState p : partitions) {
			keysHeld += p.retryHeldKeys();
			messagesHeld += p.waitingForRetryHolds();
			long oldest = p.oldestOpenNanos();
			stats.add(new PartitionSnapshot(p.partition, p.epoch, p.fetchedOffset(), p.committedOffset(), p.buffered(),
					p.backlog(), p.backlogBytes(), p.openBatches(),
					(oldest < 0) ? 0 : (nowNanos - oldest) / 1_000_000, p.flow().isPaused(), p.pauses.isUserPaused() || paused,
					ends.getOrDefault(p.partition, -1L), p.flow().reason(), p.batchStats(nowNanos)));
		}
		return new ContainerSnapshot(this.id, this.state, stats, this.threadSize, busy, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				this.lastCommitProgressMillis, shownSourceError(), this.ticker.currentTimeMillis(), null, 0, 0, 0, 0, 0, 0,
				keysHeld, messagesHeld, 0, 0);
	}

}

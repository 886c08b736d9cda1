package io.batchconsumer.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.batchconsumer.core.spi.RetryQueue;

/**
 * An immutable snapshot of a container, safe to read from any thread. Counters count since the
 * container was created.
 *
 * @param id the container id
 * @param state its life-cycle state
 * @param partitions the assigned partitions
 * @param threadSize worker threads
 * @param busyThreads worker threads running a slice
 * @param flowControlCount times fetching stopped because of the buffered count
 * @param flowControlSize times fetching stopped because of the buffered bytes
 * @param flowControlSpan times fetching stopped because of the offset span
 * @param messagesSucceeded messages that a listener finished
 * @param messagesRetried message deliveries that failed and were tried again
 * @param messagesDeadLettered messages written to the dead letter
 * @param messagesSkipped messages that failed every attempt while dead letters were off
 * @param commitsSucceeded commits that were stored
 * @param commitsFailed commits that failed
 * @param lastCommitProgressMillis when a commit last moved a position forward (epoch millis), or
 *        when the container started
 * @param sourceError the last error reaching the source, else the last failure of the container's own
 *        writes (dead letters, retry queue) once two tries in a row failed and until one succeeds;
 *        {@code null} while the source is reachable and those writes succeed
 * @param snapshotMillis when this snapshot was taken (epoch millis)
 * @param fatalError the first {@link VirtualMachineError} a worker met (an {@code OutOfMemoryError}, a
 *        {@code StackOverflowError}), or {@code null}; once set the container is unhealthy until
 *        restarted, though it goes on retrying the work the error interrupted
 * @param messagesFiltered messages finished without the listener because their tag or a
 *        {@link MessageFilter} did not select them
 * @param messagesQueuedForRetry failed messages stored in the {@link RetryQueue} (and finished where
 *        they failed) because their next back-off exceeds {@code retry.blocking-limit}; each is
 *        counted in {@code messagesRetried} too
 * @param batchesOpened thread batches handed to the workers (a batch whose every message was
 *        filtered needs no worker and is not counted)
 * @param batchesWhole of them, {@code key} batches handed out whole, as one slice of consecutive
 *        messages, because the owner thread was the bound (its CPU time per message more than twice
 *        a worker's, and busy at least half the time); the others went out as formed (in {@code key}
 *        order cut by key, in the other orders in consecutive slices, one slice when small)
 * @param messagesCompletedBefore messages finished before their delivery and not handed to the
 *        listener: exactly-once processing found their completion marks (not counted in
 *        {@code messagesSucceeded})
 * @param rateLimitHolds times new batches started being held back by the listener's {@code rate-limit}
 *        (the messages waited in the buffer, holding no thread)
 * @param keysHeldForRetry in {@code key} order, keys with a message in the {@link RetryQueue}: their later
 *        messages wait for it (in the key gate, holding no thread)
 * @param messagesHeldForRetry messages of slices waiting for such a key (the slices queued behind those
 *        wait too and are not counted)
 * @param keyRateLimitHolds times a message key started being held back by {@code rate-limit-per-key}
 *        (its messages waited, holding no thread, while other keys' went on)
 * @param asyncCallsInFlight now: calls of an {@link AsyncSliceListener} whose stage has not completed (nor
 *        timed out); they hold no worker thread
 */
public record ContainerSnapshot(String id, LifecyclePhase state, List<PartitionSnapshot> partitions, int threadSize,
		int busyThreads, long flowControlCount, long flowControlSize, long flowControlSpan, long messagesSucceeded,
		long messagesRetried, long messagesDeadLettered, long messagesSkipped, long commitsSucceeded,
		long commitsFailed, long lastCommitProgressMillis, @Nullable String sourceError, long snapshotMillis,
		@Nullable String fatalError, long messagesFiltered, long messagesQueuedForRetry, long batchesOpened,
		long batchesWhole, long messagesCompletedBefore, long rateLimitHolds, long keysHeldForRetry,
		long messagesHeldForRetry, long keyRateLimitHolds, long asyncCallsInFlight) {

	public ContainerSnapshot {
		partitions = List.copyOf(partitions);
	}

	/**
	 * A snapshot without per-key rate holds or asynchronous calls in flight (both 0).
	 * @param id the container id
	 * @param state its life-cycle state
	 * @param partitions the assigned partitions
	 * @param threadSize worker threads
	 * @param busyThreads worker threads running a slice
	 * @param flowControlCount times fetching stopped because of the buffered count
	 * @param flowControlSize times fetching stopped because of the buffered bytes
	 * @param flowControlSpan times fetching stopped because of the offset span
	 * @param messagesSucceeded messages that a listener finished
	 * @param messagesRetried message deliveries that failed and were tried again
	 * @param messagesDeadLettered messages written to the dead letter
	 * @param messagesSkipped messages that failed every attempt while dead letters were off
	 * @param commitsSucceeded commits that were stored
	 * @param commitsFailed commits that failed
	 * @param lastCommitProgressMillis when a commit last moved a position forward
	 * @param sourceError the last error reaching the source, or {@code null}
	 * @param snapshotMillis when this snapshot was taken
	 * @param fatalError the first {@link VirtualMachineError} a worker met, or {@code null}
	 * @param messagesFiltered messages finished without the listener
	 * @param messagesQueuedForRetry failed messages stored in the {@link RetryQueue}
	 * @param batchesOpened thread batches handed to the workers
	 * @param batchesWhole of them, {@code key} batches handed out whole
	 * @param messagesCompletedBefore messages finished before their delivery
	 * @param rateLimitHolds times new batches started being held back by the rate limit
	 * @param keysHeldForRetry keys with a message in the {@link RetryQueue}
	 * @param messagesHeldForRetry messages of slices waiting for such a key
	 */
	public ContainerSnapshot(String id, LifecyclePhase state, List<PartitionSnapshot> partitions, int threadSize,
			int busyThreads, long flowControlCount, long flowControlSize, long flowControlSpan, long messagesSucceeded,
			long messagesRetried, long messagesDeadLettered, long messagesSkipped, long commitsSucceeded,
			long commitsFailed, long lastCommitProgressMillis, @Nullable String sourceError, long snapshotMillis,
			@Nullable String fatalError, long messagesFiltered, long messagesQueuedForRetry, long batchesOpened,
			long batchesWhole, long messagesCompletedBefore, long rateLimitHolds, long keysHeldForRetry,
			long messagesHeldForRetry) {
		this(id, state, partitions, threadSize, busyThreads, flowControlCount, flowControlSize, flowControlSpan,
				messagesSucceeded, messagesRetried, messagesDeadLettered, messagesSkipped, commitsSucceeded,
				commitsFailed, lastCommitProgressMillis, sourceError, snapshotMillis, fatalError, messagesFiltered,
				messagesQueuedForRetry, batchesOpened, batchesWhole, messagesCompletedBefore, rateLimitHolds,
				keysHeldForRetry, messagesHeldForRetry, 0, 0);
	}

	/**
	 * Messages fetched and not finished, over every partition.
	 * @return the backlog
	 */
	public long backlog() {
		return this.partitions.stream().mapToLong(PartitionSnapshot::backlog).sum();
	}

	/**
	 * Bytes of the backlog, over every partition.
	 * @return the backlog bytes
	 */
	public long backlogBytes() {
		return this.partitions.stream().mapToLong(PartitionSnapshot::backlogBytes).sum();
	}

	/**
	 * Commit lag summed over every partition.
	 * @return the commit lag
	 */
	public long commitLag() {
		return this.partitions.stream().mapToLong(PartitionSnapshot::commitLag).sum();
	}

	/**
	 * Open thread batches over every partition.
	 * @return the open batches
	 */
	public int openBatches() {
		return this.partitions.stream().mapToInt(PartitionSnapshot::openBatches).sum();
	}

}

package io.batchconsumer.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one assigned partition, published by the owner thread.
 *
 * @param partition the partition
 * @param epoch the assignment epoch: a new one on every assignment and seek
 * @param fetchedOffset the next offset to fetch (last fetched + 1), or -1 before the first fetch
 * @param committedOffset the last committed position (next offset to read), or -1 when none was committed yet
 * @param buffered messages fetched and not yet handed to a worker
 * @param backlog messages fetched and not finished (buffered, waiting or in flight)
 * @param backlogBytes bytes of those messages
 * @param openBatches thread batches not yet committed
 * @param oldestOpenBatchAgeMillis the age of the oldest open batch, 0 when none is open
 * @param pausedByFlowControl whether flow control stopped fetching it
 * @param pausedByUser whether an operator paused it
 * @param endOffset the end of the partition when the transport knows it, or -1
 * @param flowControlReason why flow control stopped fetching it ({@code count}, {@code size},
 *        {@code span}, or the container's {@code container-count}, {@code container-size};
 *        comma-separated when several), or {@code null} while it does not
 * @param batches the oldest open thread batches (at most {@link #MAX_BATCHES}), the first holding the
 *        watermark
 */
public record PartitionSnapshot(TopicPartition partition, long epoch, long fetchedOffset, long committedOffset,
		int buffered, long backlog, long backlogBytes, int openBatches, long oldestOpenBatchAgeMillis,
		boolean pausedByFlowControl, boolean pausedByUser, long endOffset, @Nullable String flowControlReason,
		List<BatchSnapshot> batches) {

	/** How many open batches a snapshot lists at most. */
	public static final int MAX_BATCHES = 20;

	public PartitionSnapshot {
		batches = List.copyOf(batches);
	}

	/**
	 * A snapshot without the flow-control reason and batch details.
	 * @param partition the partition
	 * @param epoch the assignment epoch
	 * @param fetchedOffset the next offset to fetch, or -1
	 * @param committedOffset the last committed position, or -1
	 * @param buffered messages fetched and not yet handed to a worker
	 * @param backlog messages fetched and not finished
	 * @param backlogBytes bytes of those messages
	 * @param openBatches thread batches not yet committed
	 * @param oldestOpenBatchAgeMillis the age of the oldest open batch
	 * @param pausedByFlowControl whether flow control stopped fetching it
	 * @param pausedByUser whether an operator paused it
	 * @param endOffset the end of the partition, or -1
	 */
	public PartitionSnapshot(TopicPartition partition, long epoch, long fetchedOffset, long committedOffset, int buffered,
			long backlog, long backlogBytes, int openBatches, long oldestOpenBatchAgeMillis, boolean pausedByFlowControl,
			boolean pausedByUser, long endOffset) {
		this(partition, epoch, fetchedOffset, committedOffset, buffered, backlog, backlogBytes, openBatches,
				oldestOpenBatchAgeMillis, pausedByFlowControl, pausedByUser, endOffset, null, List.of());
	}

	/**
	 * Fetched position minus committed position: what a crash now would deliver again.
	 * @return the commit lag, 0 when unknown
	 */
	public long commitLag() {
		if (this.fetchedOffset < 0) {
			return 0;
		}
		return (this.committedOffset < 0) ? this.backlog : Math.max(0, this.fetchedOffset - this.committedOffset);
	}

}

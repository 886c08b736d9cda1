package io.batchconsumer.core;

import java.util.List;

/**
 * A snapshot of one open thread batch of a partition, published by the owner thread with its
 * {@link PartitionSnapshot}. The first open batch of a partition is the one that holds its watermark:
 * nothing after it is committed until it is finished.
 *
 * @param id the batch id, increasing per partition and epoch
 * @param firstOffset its first offset
 * @param lastOffset its last offset
 * @param ageMillis how long ago it was opened
 * @param slices its slices, in index order
 */
public record BatchSnapshot(long id, long firstOffset, long lastOffset, long ageMillis, List<SliceSnapshot> slices) {

	public BatchSnapshot {
		slices = List.copyOf(slices);
	}

	/**
	 * One slice of the batch.
	 *
	 * @param state where it is
	 * @param messages how many messages it holds
	 * @param attempts deliveries to the listener so far of the messages of its current call, 0 before
	 *        the first
	 */
	public record SliceSnapshot(SliceState state, int messages, int attempts) {
	}

	/** Where a slice is. */
	public enum SliceState {

		/** Every message of it succeeded or was dead-lettered. */
		DONE,

		/** On a worker, in the listener. */
		IN_FLIGHT,

		/** On a worker, waiting out the back-off after a failed delivery. */
		RETRYING,

		/** Waiting until an older slice with one of its keys is finished; holds no thread. */
		WAITING_FOR_KEY,

		/** Waiting until its key may have more messages under {@code rate-limit-per-key}; holds no thread. */
		WAITING_FOR_RATE,

		/** Ready, waiting for a free worker. */
		WAITING_FOR_WORKER,

		/** Off its worker: an asynchronous listener's {@code CompletionStage} for it is pending; holds no thread. */
		AWAITING_COMPLETION

	}

}

package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.PartitionSnapshot;

/**
 * The slices of every open thread batch of one partition epoch, oldest first, for the published
 * snapshot (the ledger keeps only counts and offsets). A batch is dropped once every slice of it is
 * done and no older batch is open, as the ledger's advance does.
 *
 * <p>Threading: owned by the owner thread, through its {@link PartitionState}. The owner reads each
 * slice's volatile {@link Slice#state} and {@link Slice#attempts}, which workers write.
 */
final class OpenBatches {

	private final ArrayDeque<OpenBatch> batches = new ArrayDeque<>();

	/**
	 * Records a batch the ledger just opened.
	 * @param id the ledger's batch id
	 * @param firstOffset its first offset
	 * @param lastOffset its last offset
	 * @param openedNanos when it was opened (the container's ticker)
	 * @param slices its slices, in index order
	 */
	void open(long id, long firstOffset, long lastOffset, long openedNanos, Slice[] slices) {
		this.batches.addLast(new OpenBatch(id, firstOffset, lastOffset, openedNanos, slices));
	}

	/** Drops the batches at the head whose every slice is done. */
	void dropFinished() {
		while (!this.batches.isEmpty() && this.batches.peekFirst().isDone()) {
			this.batches.pollFirst();
		}
	}

	/**
	 * The lowest offset of a message not finished in the oldest open batch: every message below it
	 * is finished, since the batches before that one are and every message of it is in one of its
	 * slices.
	 * @return the offset, or -1 when no batch is open
	 */
	long lowestUnfinishedOffset() {
		OpenBatch oldest = this.batches.peekFirst();
		if (oldest == null) {
			return -1;
		}
		long lowest = oldest.lastOffset() + 1;
		for (Slice slice : oldest.slices()) {
			if (slice.state != BatchSnapshot.SliceState.DONE) {
				for (Message<byte[]> message : slice.messages) {
					lowest = Math.min(lowest, message.offset());
				}
			}
		}
		return lowest;
	}

	/**
	 * The oldest open batches, at most {@link PartitionSnapshot#MAX_BATCHES}, with the state of each slice.
	 * @param nowNanos the time their ages are measured at (the container's ticker)
	 * @return the snapshots, oldest first
	 */
	List<BatchSnapshot> stats(long nowNanos) {
		List<BatchSnapshot> stats = new ArrayList<>(Math.min(this.batches.size(), PartitionSnapshot.MAX_BATCHES));
		for (OpenBatch batch : this.batches) {
			if (stats.size() == PartitionSnapshot.MAX_BATCHES) {
				break;
			}
			List<BatchSnapshot.SliceSnapshot> slices = new ArrayList<>(batch.slices().length);
			for (Slice slice : batch.slices()) {
				slices.add(new BatchSnapshot.SliceSnapshot(slice.state, slice.messages.size(), slice.attempts));
			}
			stats.add(new BatchSnapshot(batch.id(), batch.firstOffset(), batch.lastOffset(),
					(nowNanos - batch.openedNanos()) / 1_000_000, slices));
		}
		return stats;
	}

	/** The slices of one open batch. */
	private record OpenBatch(long id, long firstOffset, long lastOffset, long openedNanos, Slice[] slices) {

		boolean isDone() {
			for (Slice slice : this.slices) {
				if (slice.state != BatchSnapshot.SliceState.DONE) {
					return false;
				}
			}
			return true;
		}

	}

}

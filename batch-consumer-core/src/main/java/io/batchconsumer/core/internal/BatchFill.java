package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;

/**
 * Batches that wait to fill ({@code consumer-batch-min-size}, {@code consumer-batch-max-wait}): a
 * partition with fewer due messages than the minimum forms no batch until the minimum arrived,
 * {@code consumer-batch-max-bytes} of messages arrived, or its oldest buffered message waited
 * {@code consumer-batch-max-wait}. Waiting messages stay in the buffer: they hold no worker, count in
 * the backlog and in flow control, and are not in the ledger, so the watermark and key order are as
 * for any buffered message. A partition stopped by flow control does not wait (nothing more comes
 * until it is worked off); a revoke or the stop drops the buffer, which ends the wait.
 *
 * <p>The wait of a partition starts when its buffer stops being empty (the owner sees it at the next
 * hand-out, right after the poll that brought it) and ends when a batch empties the buffer; a batch
 * that leaves messages behind leaves them the wait that has run already, so none waits longer than
 * the maximum.
 *
 * <p>Threading: owned by the owner thread, as the partitions' {@code fillSinceNanos} are.
 */
final class BatchFill {

	private ContainerOptions options; // replaced by retune (runtime tuning)

	BatchFill(ContainerOptions options) {
		this.options = options;
	}

	void retune(ContainerOptions tuned) {
		this.options = tuned;
	}

	/** Whether batches may wait at all: a minimum above 1. */
	boolean waits() {
		return this.options.consumerBatchMinSize() > 1;
	}

	/**
	 * Starts the wait of partitions whose buffer filled since the last look, and ends it for empty ones.
	 * @param partitions the assigned partitions
	 * @param nowNanos the time
	 */
	void track(List<PartitionState> partitions, long nowNanos) {
		if (!waits()) {
			return;
		}
		for (PartitionState partition : partitions) {
			if (partition.buffered() == 0) {
				partition.fillSinceNanos = -1;
			}
			else if (partition.fillSinceNanos < 0) {
				partition.fillSinceNanos = nowNanos;
			}
		}
	}

	/**
	 * A batch was taken from the partition: an emptied buffer ends its wait.
	 * @param partition the partition
	 */
	void taken(PartitionState partition) {
		if (partition.buffered() == 0) {
			partition.fillSinceNanos = -1;
		}
	}

	/**
	 * Whether the partition's next batch waits to fill.
	 * @param partition a dispatchable partition
	 * @param due which buffered messages are due
	 * @param nowNanos the time
	 * @return {@code true} while fewer than the minimum (and fewer than the byte bound) are due, the
	 *         partition fetches, and its wait has not run out
	 */
	boolean shouldWait(PartitionState partition, Predicate<Message<byte[]>> due, long nowNanos) {
		int min = this.options.consumerBatchMinSize();
		if (min <= 1 || partition.flow().isPaused() || nanosLeft(partition, nowNanos) <= 0) {
			return false;
		}
		long maxBytes = this.options.consumerBatchMaxBytes();
		long[] bytes = { 0 };
		int count = partition.leading(min, (message) -> due.test(message) && (bytes[0] += message.serializedSize()) >= 0);
		return count < min && (maxBytes <= 0 || bytes[0] < maxBytes);
	}

	/**
	 * Cuts a run into {@code n} consecutive slices: while batches wait for a minimum, of sizes that
	 * differ by one at most, so that none is under the minimum when the run holds {@code n} times it
	 * (the dispatcher cuts no more slices than that); otherwise as {@link SliceSplitter#consecutive}.
	 * In {@code key} order slices are cut by key, and a key's slice may hold fewer.
	 * @param run the messages
	 * @param n the slices
	 * @return the slices
	 */
	List<List<Message<byte[]>>> consecutive(List<Message<byte[]>> run, int n) {
		if (!waits()) {
			return SliceSplitter.consecutive(run, n);
		}
		List<List<Message<byte[]>>> parts = new ArrayList<>(n);
		int from = 0;
		for (int i = 0; i < n; i++) {
			int to = from + (run.size() - from) / (n - i);
			parts.add(run.subList(from, to));
			from = to;
		}
		parts.removeIf(List::isEmpty);
		return parts;
	}

	/**
	 * How long until the first waiting partition's wait runs out, for the owner's sleep.
	 * @param partitions the assigned partitions
	 * @param nowNanos the time
	 * @return nanoseconds, {@code Long.MAX_VALUE} when none waits
	 */
	long nanosUntilWaitEnds(List<PartitionState> partitions, long nowNanos) {
		long until = Long.MAX_VALUE;
		if (!waits()) {
			return until;
		}
		for (PartitionState partition : partitions) {
			long left = partition.isDispatchable() ? nanosLeft(partition, nowNanos) : 0;
			if (left > 0) {
				until = Math.min(until, left);
			}
		}
		return until;
	}

	private long nanosLeft(PartitionState partition, long nowNanos) {
		long since = (partition.fillSinceNanos < 0) ? nowNanos : partition.fillSinceNanos;
		return since + this.options.consumerBatchMaxWait().toNanos() - nowNanos;
	}

}

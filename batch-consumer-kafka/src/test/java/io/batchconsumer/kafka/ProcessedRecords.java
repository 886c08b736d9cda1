package io.batchconsumer.kafka;

import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * Counts how often each record of a topic filled by {@link io.batchconsumer.testsupport.SharedKafka#fill} was processed,
 * from any number of worker threads.
 */
final class ProcessedRecords implements SliceListener {

	private final AtomicIntegerArray[] counts;

	ProcessedRecords(int partitions, int perPartition) {
		this.counts = new AtomicIntegerArray[partitions];
		for (int p = 0; p < partitions; p++) {
			this.counts[p] = new AtomicIntegerArray(perPartition);
		}
	}

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) {
		slice.forEach(this::record);
		return BatchResult.success();
	}

	void record(Message<?> message) {
		this.counts[message.partition()].incrementAndGet((int) message.offset());
	}

	/** Records processed at least once. */
	long distinct() {
		long distinct = 0;
		for (AtomicIntegerArray partition : this.counts) {
			for (int i = 0; i < partition.length(); i++) {
				distinct += (partition.get(i) > 0) ? 1 : 0;
			}
		}
		return distinct;
	}

	/** Deliveries beyond the first, over every record. */
	long duplicates() {
		long duplicates = 0;
		for (AtomicIntegerArray partition : this.counts) {
			for (int i = 0; i < partition.length(); i++) {
				duplicates += Math.max(0, partition.get(i) - 1);
			}
		}
		return duplicates;
	}

	/** Records of one partition processed at least once. */
	long distinct(int partition) {
		long distinct = 0;
		for (int i = 0; i < this.counts[partition].length(); i++) {
			distinct += (this.counts[partition].get(i) > 0) ? 1 : 0;
		}
		return distinct;
	}

}

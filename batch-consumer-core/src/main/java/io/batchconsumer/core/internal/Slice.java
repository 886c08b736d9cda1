package io.batchconsumer.core.internal;

import java.util.AbstractList;
import java.util.List;

import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.Message;

/**
 * One slice of a thread batch: the messages one worker processes in one hand-off, in listener calls
 * of at most {@link #callSize} messages each.
 *
 * <p>Threading: immutable after construction, handed from the owner thread to a worker and back,
 * except {@link #state} and {@link #attempts}, which only the published snapshot reads: the owner
 * writes them before it hands the slice out and after it took the completion back, the worker in
 * between; both are volatile so the owner's snapshot sees the worker's latest. {@link #resumeAt}
 * is written by the worker and read by the worker that runs the slice again.
 */
final class Slice {

	final PartitionState partition;

	final long epoch;

	final long batchId;

	final int index;

	final List<Message<byte[]>> messages;

	/**
	 * The most messages of one listener call: the worker calls the listener on consecutive runs of
	 * at most this many, one after the other ({@link SliceRunner#process}).
	 */
	final int callSize;

	final long bytes;

	volatile BatchSnapshot.SliceState state = BatchSnapshot.SliceState.WAITING_FOR_WORKER;

	/** Deliveries of the current call's messages to the listener so far; written by the worker. */
	volatile int attempts;

	/**
	 * Where a run of the slice starts: the index of the first message whose call is not done (its
	 * messages neither succeeded nor dead-lettered). A slice run again after a {@code Throwable}
	 * escaped its processing goes on there, so the calls that finished are not delivered again.
	 * Volatile: written by the worker, read by the worker that runs the slice again.
	 */
	volatile int resumeAt;

	/**
	 * An asynchronous listener call whose stage was pending when its worker let the slice go, or
	 * {@code null}. Written by that worker, read by the owner (to learn when it completes) and taken
	 * by the worker that goes on with the slice.
	 */
	volatile PendingCall pending;

	/**
	 * The time the slice took before its current run: earlier runs and the waits for their pending
	 * stages, so that the slice's listener time ({@link SliceSizing}) includes the asynchronous calls'
	 * latency. Owner thread only.
	 */
	long earlierNanos;

	/**
	 * Its messages handed to the retry queue, as they went there, {@code null} while none. Appended by
	 * the worker running the slice, read by the owner after the completion (the mailbox orders the two).
	 */
	List<Message<byte[]>> handedOff;

	/** When its pending stage started to be awaited (the owner's time). Owner thread only. */
	long awaitedSinceNanos;

	Slice(PartitionState partition, long batchId, int index, List<Message<byte[]>> messages, int callSize) {
		this.partition = partition;
		this.callSize = callSize;
		this.epoch = partition.epoch;
		this.batchId = batchId;
		this.index = index;
		this.messages = List.copyOf(messages);
		long total = 0;
		for (Message<byte[]> message : messages) {
			total += message.serializedSize();
		}
		this.bytes = total;
	}

	/**
	 * The keys of its messages in offset order, repeats included, {@code null} for a keyless one: what
	 * the key gate reads as the slice enters it. A view, not a copy.
	 */
	List<String> keys() {
		return new AbstractList<>() {

			@Override
			public String get(int index) {
				return Slice.this.messages.get(index).key();
			}

			@Override
			public int size() {
				return Slice.this.messages.size();
			}

		};
	}

	@Override
	public String toString() {
		return "Slice[" + this.partition.partition + " batch " + this.batchId + "/" + this.index + ", "
				+ this.messages.size() + " messages from " + this.messages.get(0).offset() + "]";
	}

}

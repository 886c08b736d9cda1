package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.batch.BatchLedger;
import io.batchconsumer.core.batch.KeyGate;

/**
 * Everything the engine knows of one assigned partition for one epoch: its buffer (the
 * partition queue), its ledger, its key gate and its flow-control state. A revoke, a loss or a
 * seek replaces the whole object, which is how late completions of an older epoch miss.
 *
 * <p>Threading: owned by the owner thread; never read by other threads (they read
 * {@link io.batchconsumer.core.PartitionStats} snapshots).
 */
final class PartitionState {

	final TopicPartition partition;

	final long epoch;

	final BatchLedger ledger = new BatchLedger();

	/** Non-null in {@link Ordering#KEY}. */
	final KeyGate<Slice> keyGate;

	private final ArrayDeque<Message<byte[]>> buffer = new ArrayDeque<>();

	private long bufferedBytes;

	/** Messages fetched and not finished, and their bytes. */
	long backlog;

	long backlogBytes;

	/** Slices of this epoch running on a worker. */
	int running;

	/** Next offset to fetch, -1 before the first fetch. */
	long fetchedOffset = -1;

	/** Highest offset fetched, -1 before the first fetch. */
	long highestFetched = -1;

	/** Last committed position, -1 when none yet in this epoch. */
	long committedOffset = -1;

	/** Position of the last commit requested and not yet confirmed or failed, -1 when none. */
	long commitRequested = -1;

	boolean flowPaused;

	long flowPausedAtNanos;

	boolean userPaused;

	/** Revoke in progress: no new slices start. */
	boolean draining;

	/** Whether the source was told to pause it. */
	boolean sourcePaused;

	/**
	 * Set by the owner when this epoch ends (revoke, loss, seek, stop); read by workers so they stop
	 * retrying work whose completion would be ignored anyway.
	 */
	volatile boolean cancelled;

	PartitionState(TopicPartition partition, long epoch, Ordering ordering) {
		this.partition = partition;
		this.epoch = epoch;
		this.keyGate = (ordering == Ordering.KEY) ? new KeyGate<>(Slice::keys) : null;
	}

	void add(Message<byte[]> message) {
		if (message.offset() < this.fetchedOffset) {
			// A transport re-delivered what we already hold (e.g. after its own retry): ignore it,
			// the ledger rejects offsets that go back.
			return;
		}
		this.buffer.addLast(message);
		this.bufferedBytes += message.serializedSize();
		this.backlog++;
		this.backlogBytes += message.serializedSize();
		this.fetchedOffset = message.offset() + 1;
		this.highestFetched = message.offset();
	}

	int buffered() {
		return this.buffer.size();
	}

	/** Takes up to {@code max} messages from the head of the buffer. */
	List<Message<byte[]>> take(int max) {
		int count = Math.min(max, this.buffer.size());
		List<Message<byte[]>> taken = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			Message<byte[]> message = this.buffer.pollFirst();
			this.bufferedBytes -= message.serializedSize();
			taken.add(message);
		}
		return taken;
	}

	/** The oldest buffered message, {@code null} when the buffer is empty. */
	Message<byte[]> head() {
		return this.buffer.peekFirst();
	}

	/** How many buffered messages from the head, at most {@code max}, pass the test one after the other. */
	int leading(int max, java.util.function.Predicate<Message<byte[]>> test) {
		int count = 0;
		for (Message<byte[]> message : this.buffer) {
			if (count >= max || !test.test(message)) {
				break;
			}
			count++;
		}
		return count;
	}

	/** Finishes messages that were taken and never handed to a worker (filtered). */
	void finishedUnsent(List<Message<byte[]>> messages) {
		for (Message<byte[]> message : messages) {
			this.backlog--;
			this.backlogBytes -= message.serializedSize();
		}
	}

	/** Drops what was fetched and not handed out: it was never finished, so it is delivered again. */
	void dropBuffer() {
		this.backlog -= this.buffer.size();
		this.backlogBytes -= this.bufferedBytes;
		this.buffer.clear();
		this.bufferedBytes = 0;
	}

	void finished(Slice slice) {
		this.backlog -= slice.messages.size();
		this.backlogBytes -= slice.bytes;
	}

	/** Highest fetched minus lowest unfinished offset; 0 when nothing is unfinished. */
	long span() {
		long lowest = this.ledger.lowestOpenOffset();
		if (lowest < 0) {
			lowest = this.buffer.isEmpty() ? -1 : this.buffer.peekFirst().offset();
		}
		return (lowest < 0) ? 0 : this.highestFetched - lowest;
	}

	/** Whether the watermark passed what was committed or requested. */
	boolean hasUncommittedProgress() {
		return this.ledger.watermark() > Math.max(this.committedOffset, this.commitRequested);
	}

	boolean isDispatchable() {
		return !this.buffer.isEmpty() && !this.draining && !this.userPaused;
	}

}

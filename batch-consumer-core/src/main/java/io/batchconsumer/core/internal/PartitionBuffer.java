package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.batchconsumer.core.Message;

/**
 * The partition queue of one epoch: fetched messages not yet handed out, in offset order, with
 * their bytes and the fetch positions.
 *
 * <p>Threading: owned by the owner thread, through its {@link PartitionState}.
 */
final class PartitionBuffer {

	private final ArrayDeque<Message<byte[]>> messages = new ArrayDeque<>();

	private long bytes;

	/** Next offset to fetch, -1 before the first fetch. */
	private long fetchedOffset = -1;

	/** Highest offset fetched, -1 before the first fetch. */
	private long highestFetched = -1;

	/**
	 * Appends a fetched message.
	 * @param message the message
	 * @return {@code false} when it goes back behind what was fetched (a transport re-delivered what
	 *         we already hold, e.g. after its own retry) and is ignored: the ledger rejects offsets
	 *         that go back
	 */
	boolean add(Message<byte[]> message) {
		if (message.offset() < this.fetchedOffset) {
			return false;
		}
		this.messages.addLast(message);
		this.bytes += message.serializedSize();
		this.fetchedOffset = message.offset() + 1;
		this.highestFetched = message.offset();
		return true;
	}

	/** Takes up to {@code max} messages from the head. */
	List<Message<byte[]>> take(int max) {
		int count = Math.min(max, this.messages.size());
		List<Message<byte[]>> taken = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			Message<byte[]> message = this.messages.pollFirst();
			this.bytes -= message.serializedSize();
			taken.add(message);
		}
		return taken;
	}

	/** The oldest message, {@code null} when empty. */
	Message<byte[]> head() {
		return this.messages.peekFirst();
	}

	/** How many messages from the head, at most {@code max}, pass the test one after the other. */
	int leading(int max, Predicate<Message<byte[]>> test) {
		int count = 0;
		for (Message<byte[]> message : this.messages) {
			if (count >= max || !test.test(message)) {
				break;
			}
			count++;
		}
		return count;
	}

	void clear() {
		this.messages.clear();
		this.bytes = 0;
	}

	int size() {
		return this.messages.size();
	}

	boolean isEmpty() {
		return this.messages.isEmpty();
	}

	long bytes() {
		return this.bytes;
	}

	/** The offset at the head, -1 when empty. */
	long firstOffset() {
		return this.messages.isEmpty() ? -1 : this.messages.peekFirst().offset();
	}

	long fetchedOffset() {
		return this.fetchedOffset;
	}

	long highestFetched() {
		return this.highestFetched;
	}

}

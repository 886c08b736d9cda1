package io.batchconsumer.jdbc;

import io.batchconsumer.core.TopicPartition;

/**
 * A queue a source currently owns: where it reads next, the position and offset version it claimed, whether
 * it is paused, and until when its lease is safely ours.
 *
 * <p>Threading: owned by the source's owner thread.
 */
final class OwnedQueue {

	final TopicPartition queue;

	final long version;

	/** The committed position read when the queue was claimed. */
	final long claimed;

	/** The next offset to read. */
	long position;

	boolean paused;

	/**
	 * Whether its last read filled the poll, so more messages may follow {@link #position}; {@code false}
	 * once a read came back short (it reached the end) or after a seek.
	 */
	boolean behind;

	/** Epoch millis after which the queue must be given up unless the lease was renewed. */
	long validUntil;

	OwnedQueue(TopicPartition queue, long position, long version, long validUntil) {
		this.queue = queue;
		this.position = position;
		this.claimed = position;
		this.version = version;
		this.validUntil = validUntil;
	}

}

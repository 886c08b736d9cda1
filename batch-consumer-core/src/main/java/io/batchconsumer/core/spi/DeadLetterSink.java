package io.batchconsumer.core.spi;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.SliceListener;

/**
 * The transport SPI for dead letters: Kafka writes to {@code <topic>.DLQ}, JDBC to the
 * dead-letter table.
 *
 * <p>Threading: called concurrently by worker threads; implementations must be thread-safe.
 * A write that throws leaves the message unfinished: the engine tries the write again with
 * back-off, and never commits past the message until a write succeeds.
 */
@FunctionalInterface
public interface DeadLetterSink {

	/**
	 * Stores a dead letter durably before returning.
	 * @param deadLetter the dead letter
	 * @throws Exception when it could not be stored
	 */
	void send(DeadLetter deadLetter) throws Exception;

	/**
	 * Stores a dead letter of a slice of a known partition epoch
	 * ({@link SliceListener#epochStarted}); the engine calls this method, which by default calls
	 * {@link #send(DeadLetter)}.
	 * @param deadLetter the dead letter
	 * @param epoch the epoch of the partition the message was handed out in
	 * @throws Exception when it could not be stored
	 */
	default void send(DeadLetter deadLetter, long epoch) throws Exception {
		send(deadLetter);
	}

}

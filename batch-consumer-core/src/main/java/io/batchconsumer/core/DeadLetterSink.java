package io.batchconsumer.core;

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

}

package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.time.Instant;
import java.util.List;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * A retry queue that can store inside a transaction it is given: the JDBC transport's, whose
 * schedule lives in the database of the completion marks, so that in exactly-once mode the retry
 * copy of a message and the original's mark commit together.
 */
public interface TransactionalRetryQueue extends RetryQueue {

	/**
	 * Stores messages to deliver again at a time on the given connection, without committing.
	 * @param messages the messages, each with the {@link Message#deliveryAttempt()} it comes back with
	 * @param dueAt when they are due
	 * @param connection the connection of the caller's transaction
	 * @throws Exception when they could not be stored
	 */
	void schedule(List<Message<byte[]>> messages, Instant dueAt, Connection connection) throws Exception;

}

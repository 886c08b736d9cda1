package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.spi.DeadLetterSink;

/**
 * A dead-letter sink that can write inside a transaction it is given: the JDBC transport's, whose
 * dead-letter table lives in the database of the completion marks, so that in exactly-once mode a
 * dead letter and its mark commit together.
 */
public interface TransactionalDeadLetterSink extends DeadLetterSink {

	/**
	 * Stores a dead letter on the given connection, without committing.
	 * @param deadLetter the dead letter
	 * @param connection the connection of the caller's transaction
	 * @throws Exception when it could not be written
	 */
	void send(DeadLetter deadLetter, Connection connection) throws Exception;

}

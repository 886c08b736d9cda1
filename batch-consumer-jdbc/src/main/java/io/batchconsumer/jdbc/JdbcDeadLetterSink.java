package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.exactlyonce.TransactionalDeadLetterSink;

/**
 * Writes dead letters of one consumer group to the dead-letter table: the original topic, queue and
 * offset ({@link DeadLetter#origin()}: for a retry, the record it retries, not the retry topic's),
 * key, payload bytes and headers, the attempts, the error class and the bounded error message,
 * with the group and the time. The write is committed before {@link #send} returns.
 *
 * <p>Threading: thread-safe; called by worker threads.
 */
final class JdbcDeadLetterSink implements TransactionalDeadLetterSink {

	private final Sql sql;

	private final JdbcTables tables;

	private final String group;

	private final Clock clock;

	JdbcDeadLetterSink(Sql sql, JdbcTables tables, String group, Clock clock) {
		this.sql = sql;
		this.tables = tables;
		this.group = group;
		this.clock = clock;
	}

	@Override
	public void send(DeadLetter deadLetter) {
		this.sql.inTransaction("Storing a dead letter of " + deadLetter.message(), (connection) -> insert(deadLetter, connection));
	}

	/** Writes on the caller's transaction (exactly-once: with the message's completion mark). */
	@Override
	public void send(DeadLetter deadLetter, Connection connection) throws SQLException {
		insert(deadLetter, connection);
	}

	/**
	 * The text with U+0000 written as the two characters {@code \0}, which every database and character
	 * set stores: PostgreSQL's text cannot hold U+0000, and an exception's message may quote a binary
	 * payload. Refused, the write failed every time and the message never finished.
	 */
	private static String storable(String text) {
		return (text.indexOf('\u0000') >= 0) ? text.replace("\u0000", "\\0") : text;
	}

	private int insert(DeadLetter deadLetter, Connection connection) throws SQLException {
		Message<byte[]> message = deadLetter.message();
		String errorClass = deadLetter.errorClass();
		String errorClassBounded = (errorClass.length() <= 500) ? errorClass : errorClass.substring(0, 500);
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.tables.deadLetter()
				+ " (group_id, topic, queue_id, msg_offset, msg_key, headers, payload, attempts, error_class,"
				+ " error_message, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
			insert.setString(1, this.group);
			DeadLetter.Origin origin = deadLetter.origin();
			insert.setString(2, origin.topic());
			insert.setInt(3, origin.partition());
			insert.setLong(4, origin.offset());
			insert.setString(5, message.key());
			insert.setString(6, HeaderCodec.encode(message.headers()));
			insert.setBytes(7, message.payload());
			insert.setInt(8, deadLetter.attempts());
			insert.setString(9, errorClassBounded);
			insert.setString(10, storable(deadLetter.errorMessage()));
			insert.setLong(11, this.clock.millis());
			return insert.executeUpdate();
		}
	}

}

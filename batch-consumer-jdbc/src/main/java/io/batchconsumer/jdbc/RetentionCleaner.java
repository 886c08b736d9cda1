package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.TopicPartition;

/**
 * Deletes consumed messages: a message goes when it is older than the retention and below the
 * committed position of every consumer of its queue. Consumers are the rows of the offset table;
 * a broadcast instance's row stops counting once it was not updated for a whole retention (the
 * instance is gone), a clustering group's row always counts. A queue nobody consumes keeps its
 * messages.
 *
 * <p>Deletes run in offset ranges of {@value #BATCH} rows, each its own short transaction, from
 * the oldest message up, and stop at the first range that still holds a message too young to go.
 *
 * <p>Threading: stateless apart from immutable fields and the {@link #stop()} flag; run by the
 * transport's {@code batch-consumer-jdbc-retention} thread or by a caller. It is never interrupted
 * (an interrupt inside JDBC makes H2 close a file database for everyone): {@link #stop()} sets a
 * flag it looks at between two short transactions.
 */
final class RetentionCleaner {

	private static final Logger logger = LoggerFactory.getLogger(RetentionCleaner.class);

	static final int BATCH = 1000;

	private final Sql sql;

	private final JdbcTables tables;

	private final long retentionMillis;

	private final Clock clock;

	/** Set by {@link #stop()} from the closing thread. */
	private volatile boolean stopped;

	RetentionCleaner(Sql sql, JdbcTables tables, Duration retention, Clock clock) {
		this.sql = sql;
		this.tables = tables;
		this.retentionMillis = retention.toMillis();
		this.clock = clock;
	}

	/** Makes a running purge stop after its current transaction, and later purges do nothing. */
	void stop() {
		this.stopped = true;
	}

	/**
	 * Deletes what may go.
	 * @return how many messages were deleted
	 * @throws io.batchconsumer.core.spi.SourceUnavailableException when the database failed
	 */
	int purge() {
		if (this.stopped) {
			return 0;
		}
		long cutoff = this.clock.millis() - this.retentionMillis;
		Map<TopicPartition, Long> consumed = this.sql.inTransaction("Reading consumed positions",
				(connection) -> consumed(connection, cutoff));
		int deleted = 0;
		for (Map.Entry<TopicPartition, Long> queue : consumed.entrySet()) {
			if (this.stopped) {
				break;
			}
			deleted += purge(queue.getKey(), queue.getValue(), cutoff);
		}
		if (deleted > 0) {
			logger.debug("Retention deleted {} messages older than {}", deleted, Duration.ofMillis(this.retentionMillis));
		}
		return deleted;
	}

	/** The lowest committed position of each queue over every consumer that counts. */
	private Map<TopicPartition, Long> consumed(Connection connection, long cutoff) throws SQLException {
		Map<TopicPartition, Long> consumed = new HashMap<>();
		try (PreparedStatement select = connection.prepareStatement("SELECT topic, queue_id, MIN(next_offset) FROM "
				+ this.tables.offset() + " WHERE broadcast = 0 OR updated_at >= ? GROUP BY topic, queue_id")) {
			select.setLong(1, cutoff);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					consumed.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
				}
			}
		}
		return consumed;
	}

	private int purge(TopicPartition queue, long below, long cutoff) {
		Long lowest = this.sql.inTransaction("Reading the oldest message of " + queue, (c) -> lowest(c, queue));
		int deleted = 0;
		for (long from = (lowest != null) ? lowest : below; from < below && !this.stopped; from += BATCH) {
			long to = Math.min(below, from + BATCH);
			long start = from;
			int[] outcome = this.sql.inTransaction("Deleting expired messages of " + queue,
					(c) -> deleteRange(c, queue, start, to, cutoff));
			deleted += outcome[0];
			if (outcome[1] > 0) {
				break; // a message of this range is too young; the later ones are younger still
			}
		}
		return deleted;
	}

	private Long lowest(Connection connection, TopicPartition queue) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement(
				"SELECT MIN(msg_offset) FROM " + this.tables.message() + " WHERE topic = ? AND queue_id = ?")) {
			select.setString(1, queue.topic());
			select.setInt(2, queue.partition());
			try (ResultSet rs = select.executeQuery()) {
				long value = rs.next() ? rs.getLong(1) : 0;
				return rs.wasNull() ? null : value;
			}
		}
	}

	/** Deletes the expired messages of one range; returns {deleted, left in the range}. */
	private int[] deleteRange(Connection connection, TopicPartition queue, long from, long to, long cutoff)
			throws SQLException {
		String range = " WHERE topic = ? AND queue_id = ? AND msg_offset >= ? AND msg_offset < ?";
		int deleted;
		try (PreparedStatement delete = connection
			.prepareStatement("DELETE FROM " + this.tables.message() + range + " AND created_at < ?")) {
			bindRange(delete, queue, from, to);
			delete.setLong(5, cutoff);
			deleted = delete.executeUpdate();
		}
		int left = 0;
		if (deleted < to - from) {
			try (PreparedStatement count = connection
				.prepareStatement("SELECT COUNT(*) FROM " + this.tables.message() + range)) {
				bindRange(count, queue, from, to);
				try (ResultSet rs = count.executeQuery()) {
					left = rs.next() ? rs.getInt(1) : 0;
				}
			}
		}
		return new int[] { deleted, left };
	}

	private static void bindRange(PreparedStatement statement, TopicPartition queue, long from, long to)
			throws SQLException {
		statement.setString(1, queue.topic());
		statement.setInt(2, queue.partition());
		statement.setLong(3, from);
		statement.setLong(4, to);
	}

}

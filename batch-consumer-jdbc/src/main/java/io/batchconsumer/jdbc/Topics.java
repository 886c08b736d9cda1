package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.batchconsumer.core.internal.SqlStates;

/**
 * Knows how many queues each topic has, and creates a topic (its row and one counter row per
 * queue) on first use. The queue count of an existing topic always comes from the topic table,
 * so changing {@code jdbc.queues-per-topic} later only affects new topics.
 *
 * <p>Threading: thread-safe; the cache is a concurrent map, creation races are settled by the
 * topic table's primary key.
 */
final class Topics {

	/** Longest topic name, the width of the topic columns. */
	static final int MAX_TOPIC_LENGTH = 200;

	private final Sql sql;

	private final JdbcTables tables;

	private final int queuesPerTopic;

	private final Clock clock;

	/** Queue counts never change once a topic exists, so caching them is safe. */
	private final Map<String, Integer> queues = new ConcurrentHashMap<>();

	Topics(Sql sql, JdbcTables tables, int queuesPerTopic, Clock clock) {
		this.sql = sql;
		this.tables = tables;
		this.queuesPerTopic = queuesPerTopic;
		this.clock = clock;
	}

	/**
	 * The queue count of a topic, creating the topic when it does not exist yet.
	 * @param topic the topic
	 * @return its number of queues
	 * @throws io.batchconsumer.core.spi.SourceUnavailableException when the database failed
	 */
	int queues(String topic) {
		Integer known = this.queues.get(topic);
		if (known != null) {
			return known;
		}
		validate(topic);
		int count = this.sql.inTransaction("Reading topic '" + topic + "'", (connection) -> read(connection, topic));
		if (count == 0) {
			count = create(topic);
		}
		this.queues.put(topic, count);
		return count;
	}

	/**
	 * The queue count of a topic, read, and created when it does not exist yet, in the caller's open
	 * transaction. The count is not cached, not even after the caller's commit: the caller may have
	 * created the topic in a savepoint it rolled back and still committed. The topic's consumers
	 * ({@link #queues(String)}) cache it.
	 * @param connection the caller's transaction
	 * @param topic the topic
	 * @return its number of queues
	 * @throws SQLException when the database failed
	 */
	int queues(Connection connection, String topic) throws SQLException {
		Integer known = this.queues.get(topic);
		if (known != null) {
			return known;
		}
		validate(topic);
		int count = read(connection, topic);
		return (count != 0) ? count : insert(connection, topic);
	}

	private int create(String topic) {
		try {
			return this.sql.inTransactionOrThrow((connection) -> insert(connection, topic));
		}
		catch (SQLException ex) {
			if (SqlStates.isDuplicateKey(ex)) {
				// Another producer or consumer created it at the same moment.
				return this.sql.inTransaction("Reading topic '" + topic + "'", (connection) -> read(connection, topic));
			}
			throw new io.batchconsumer.core.spi.SourceUnavailableException(
					"Creating topic '" + topic + "' failed: " + ex.getMessage(), ex);
		}
	}

	private int read(Connection connection, String topic) throws SQLException {
		try (PreparedStatement select = connection
			.prepareStatement("SELECT queues FROM " + this.tables.topic() + " WHERE topic = ?")) {
			select.setString(1, topic);
			try (ResultSet rs = select.executeQuery()) {
				return rs.next() ? rs.getInt(1) : 0;
			}
		}
	}

	private int insert(Connection connection, String topic) throws SQLException {
		try (PreparedStatement insertTopic = connection.prepareStatement(
				"INSERT INTO " + this.tables.topic() + " (topic, queues, created_at) VALUES (?, ?, ?)");
				PreparedStatement insertQueue = connection.prepareStatement(
						"INSERT INTO " + this.tables.queue() + " (topic, queue_id, next_offset) VALUES (?, ?, 0)")) {
			insertTopic.setString(1, topic);
			insertTopic.setInt(2, this.queuesPerTopic);
			insertTopic.setLong(3, this.clock.millis());
			insertTopic.executeUpdate();
			for (int queue = 0; queue < this.queuesPerTopic; queue++) {
				insertQueue.setString(1, topic);
				insertQueue.setInt(2, queue);
				insertQueue.addBatch();
			}
			insertQueue.executeBatch();
		}
		return this.queuesPerTopic;
	}

	private static void validate(String topic) {
		if (topic == null || topic.isBlank() || topic.length() > MAX_TOPIC_LENGTH) {
			throw new IllegalArgumentException(
					"topic must be 1 to " + MAX_TOPIC_LENGTH + " characters but was '" + topic + "'");
		}
	}

}

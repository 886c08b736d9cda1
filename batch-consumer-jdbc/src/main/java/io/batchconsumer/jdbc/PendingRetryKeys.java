package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * The keys of the messages of one origin partition that wait in a container's retry queue: rows of
 * the schedule table for its retry topic (not due yet), and messages of the retry topic at or past the
 * group's committed position of their queue (due, not consumed yet). Their origin is in the headers
 * ({@link RetryQueue#ORIGINAL_TOPIC}, {@link RetryQueue#ORIGINAL_PARTITION}), which are decoded here.
 * The schedule is read before the topic, so a message that moves from the one to the other meanwhile is
 * counted twice at worst, never missed (the container releases a hold counted too often when it
 * compares its holds with the queue again).
 *
 * <p>Threading: thread-safe (stateless over the tables); called by a container's owner thread.
 */
final class PendingRetryKeys {

	private final Sql sql;

	private final JdbcTables tables;

	private final String group;

	private final String topic;

	PendingRetryKeys(Sql sql, JdbcTables tables, String group, String topic) {
		this.sql = sql;
		this.tables = tables;
		this.group = group;
		this.topic = topic;
	}

	/**
	 * The keys, one per waiting message, keyless messages left out.
	 * @param origin the partition the messages were first read from
	 * @return the keys
	 * @throws io.batchconsumer.core.spi.SourceUnavailableException when the database failed
	 */
	List<String> of(TopicPartition origin) {
		return this.sql.read("Reading the keys waiting in retry topic " + this.topic, (connection) -> {
			List<String> keys = new ArrayList<>();
			collect(connection, "SELECT msg_key, headers FROM " + this.tables.prefix() + "schedule WHERE topic = ?",
					false, origin, keys);
			collect(connection, "SELECT m.msg_key, m.headers FROM " + this.tables.message() + " m LEFT JOIN "
					+ this.tables.offset() + " o ON o.group_id = ? AND o.topic = m.topic AND o.queue_id = m.queue_id"
					+ " WHERE m.topic = ? AND m.msg_offset >= COALESCE(o.next_offset, 0)", true, origin, keys);
			return keys;
		});
	}

	private void collect(Connection connection, String query, boolean withGroup, TopicPartition origin,
			List<String> keys) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement(query)) {
			int index = 1;
			if (withGroup) {
				select.setString(index++, this.group);
			}
			select.setString(index, this.topic);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					String key = rows.getString(1);
					if (key != null && isFrom(HeaderCodec.decode(rows.getString(2)), origin)) {
						keys.add(key);
					}
				}
			}
		}
	}

	private static boolean isFrom(Map<String, String> headers, TopicPartition origin) {
		return origin.topic().equals(headers.get(RetryQueue.ORIGINAL_TOPIC))
				&& Integer.toString(origin.partition()).equals(headers.get(RetryQueue.ORIGINAL_PARTITION));
	}

}

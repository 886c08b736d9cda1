package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.batchconsumer.core.TopicPartition;

/**
 * The consumer-offset table: a group's position in each queue and its offset version (PMQ's
 * offset version). Taking a queue over ({@link #claim}) bumps the version in the same transaction
 * that reads the position; a commit names the version it was claimed with and is refused when the
 * stored one moved on, so an instance whose queue was taken over cannot move the position any more.
 *
 * <p>Threading: stateless apart from immutable fields; thread-safe.
 */
final class ConsumerOffsets {

	private final JdbcTables tables;

	ConsumerOffsets(JdbcTables tables) {
		this.tables = tables;
	}

	/**
	 * A position and the version it was claimed with.
	 * @param position the next offset to read
	 * @param version the offset version
	 */
	record Claim(long position, long version) {
	}

	/**
	 * Bumps the version of a group's row for a queue (creating it at position 0 when missing) and
	 * reads it, in the caller's transaction.
	 * @param connection the connection, in a transaction
	 * @param group the consumer key (group, or group and instance for broadcast)
	 * @param queue the queue
	 * @param broadcast whether the row belongs to one broadcast instance
	 * @param now the time
	 * @return the claim
	 * @throws SQLException when the database failed
	 */
	Claim claim(Connection connection, String group, TopicPartition queue, boolean broadcast, long now)
			throws SQLException {
		try (PreparedStatement bump = connection.prepareStatement("UPDATE " + this.tables.offset()
				+ " SET version = version + 1, updated_at = ? WHERE group_id = ? AND topic = ? AND queue_id = ?")) {
			bump.setLong(1, now);
			bind(bump, 2, group, queue);
			if (bump.executeUpdate() == 0) {
				insert(connection, group, queue, broadcast, now);
			}
		}
		try (PreparedStatement read = connection.prepareStatement("SELECT next_offset, version FROM "
				+ this.tables.offset() + " WHERE group_id = ? AND topic = ? AND queue_id = ?")) {
			bind(read, 1, group, queue);
			try (ResultSet rs = read.executeQuery()) {
				rs.next();
				return new Claim(rs.getLong(1), rs.getLong(2));
			}
		}
	}

	/**
	 * Stores positions in one statement batch, each only where the stored version is still the one
	 * it was claimed with.
	 * @param connection the connection, in a transaction
	 * @param group the consumer key
	 * @param positions the next offset to read per queue
	 * @param versions the claimed version per queue
	 * @param now the time
	 * @return the queues whose commit was refused because their version moved on
	 * @throws SQLException when the database failed
	 */
	Set<TopicPartition> commit(Connection connection, String group, Map<TopicPartition, Long> positions,
			Map<TopicPartition, Long> versions, long now) throws SQLException {
		List<TopicPartition> order = new ArrayList<>(positions.keySet());
		order.sort(null); // one lock order for every committer
		int[] counts;
		try (PreparedStatement update = connection.prepareStatement("UPDATE " + this.tables.offset()
				+ " SET next_offset = ?, updated_at = ? WHERE group_id = ? AND topic = ? AND queue_id = ? AND version = ?")) {
			for (TopicPartition queue : order) {
				update.setLong(1, positions.get(queue));
				update.setLong(2, now);
				bind(update, 3, group, queue);
				update.setLong(6, versions.get(queue));
				update.addBatch();
			}
			counts = update.executeBatch();
		}
		Set<TopicPartition> refused = new HashSet<>();
		for (int i = 0; i < order.size(); i++) {
			if (counts[i] == Statement.SUCCESS_NO_INFO ? !versionIs(connection, group, order.get(i),
					versions.get(order.get(i))) : counts[i] != 1) {
				refused.add(order.get(i));
			}
		}
		return refused;
	}

	private boolean versionIs(Connection connection, String group, TopicPartition queue, long version)
			throws SQLException {
		try (PreparedStatement read = connection.prepareStatement(
				"SELECT version FROM " + this.tables.offset() + " WHERE group_id = ? AND topic = ? AND queue_id = ?")) {
			bind(read, 1, group, queue);
			try (ResultSet rs = read.executeQuery()) {
				return rs.next() && rs.getLong(1) == version;
			}
		}
	}

	private void insert(Connection connection, String group, TopicPartition queue, boolean broadcast, long now)
			throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.tables.offset()
				+ " (group_id, topic, queue_id, next_offset, version, broadcast, updated_at) VALUES (?, ?, ?, 0, 1, ?, ?)")) {
			bind(insert, 1, group, queue);
			insert.setInt(4, broadcast ? 1 : 0);
			insert.setLong(5, now);
			insert.executeUpdate();
		}
	}

	static void bind(PreparedStatement statement, int index, String group, TopicPartition queue) throws SQLException {
		statement.setString(index, group);
		statement.setString(index + 1, queue.topic());
		statement.setInt(index + 2, queue.partition());
	}

}

package io.batchconsumer.core.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.batchconsumer.core.TopicPartition;

/**
 * The lease and instance tables of one clustering consumer (one owner id in one group).
 *
 * <p>A heartbeat writes the instance row, extends every lease the owner holds to now + lease
 * duration, and reads the live instances (a heartbeat within one lease duration) and every
 * unexpired lease of the group. A lease is taken only when it is missing, expired, or already the
 * owner's, so two owners never hold one queue at once as long as their clocks agree to within the
 * safety margin the source keeps.
 *
 * <p>Threading: stateless apart from immutable fields; used by the source's owner thread.
 */
final class QueueLeases {

	/** Instance rows without a heartbeat for this many lease durations are deleted. */
	private static final int FORGET_AFTER_LEASES = 10;

	private final JdbcTables tables;

	private final String group;

	/**
	 * The instance rows' group: the group and the sorted topics, so that the fair share of a topic
	 * counts only the instances that subscribe to it. With the bare group, two listeners of one
	 * application on different topics counted each other and each took half of its topic's queues;
	 * the other half was never consumed.
	 */
	private final String members;

	private final String owner;

	private final long leaseMillis;

	QueueLeases(JdbcTables tables, String group, Collection<String> topics, String owner, Duration lease) {
		this.tables = tables;
		this.group = group;
		this.members = members(group, topics);
		this.owner = owner;
		this.leaseMillis = lease.toMillis();
	}

	/**
	 * What a heartbeat saw.
	 * @param live the live instances of the group, sorted by id
	 * @param owners the owner of every unexpired lease of the group
	 */
	record View(List<String> live, Map<TopicPartition, String> owners) {
	}

	String owner() {
		return this.owner;
	}

	/**
	 * Writes the heartbeat, renews the owner's leases and reads the group's state.
	 * @param connection the connection, in a transaction
	 * @param now the time
	 * @return the view after the renewal
	 * @throws SQLException when the database failed
	 */
	View heartbeat(Connection connection, long now) throws SQLException {
		writeInstance(connection, now);
		try (PreparedStatement renew = connection.prepareStatement(
				"UPDATE " + this.tables.lease() + " SET expires_at = ? WHERE group_id = ? AND owner_id = ?")) {
			renew.setLong(1, now + this.leaseMillis);
			renew.setString(2, this.group);
			renew.setString(3, this.owner);
			renew.executeUpdate();
		}
		List<String> live = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement("SELECT instance_id FROM " + this.tables.instance()
				+ " WHERE group_id = ? AND heartbeat_at > ? ORDER BY instance_id")) {
			select.setString(1, this.members);
			select.setLong(2, now - this.leaseMillis);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					live.add(rs.getString(1));
				}
			}
		}
		return new View(live, owners(connection, now));
	}

	/**
	 * Takes a queue's lease when it is missing, expired or already ours.
	 * @param connection the connection, in a transaction
	 * @param queue the queue
	 * @param now the time
	 * @return whether the lease is now ours
	 * @throws SQLException when the database failed; a duplicate key means someone was faster
	 */
	boolean acquire(Connection connection, TopicPartition queue, long now) throws SQLException {
		try (PreparedStatement take = connection.prepareStatement("UPDATE " + this.tables.lease()
				+ " SET owner_id = ?, expires_at = ? WHERE group_id = ? AND topic = ? AND queue_id = ?"
				+ " AND (expires_at < ? OR owner_id = ?)")) {
			take.setString(1, this.owner);
			take.setLong(2, now + this.leaseMillis);
			ConsumerOffsets.bind(take, 3, this.group, queue);
			take.setLong(6, now);
			take.setString(7, this.owner);
			if (take.executeUpdate() == 1) {
				return true;
			}
		}
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.tables.lease()
				+ " (group_id, topic, queue_id, owner_id, expires_at) VALUES (?, ?, ?, ?, ?)")) {
			ConsumerOffsets.bind(insert, 1, this.group, queue);
			insert.setString(4, this.owner);
			insert.setLong(5, now + this.leaseMillis);
			return insert.executeUpdate() == 1;
		}
	}

	/**
	 * Deletes the owner's leases of these queues.
	 * @param connection the connection, in a transaction
	 * @param queues the queues
	 * @throws SQLException when the database failed
	 */
	void release(Connection connection, Collection<TopicPartition> queues) throws SQLException {
		try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + this.tables.lease()
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND owner_id = ?")) {
			for (TopicPartition queue : queues) {
				ConsumerOffsets.bind(delete, 1, this.group, queue);
				delete.setString(4, this.owner);
				delete.addBatch();
			}
			delete.executeBatch();
		}
	}

	/**
	 * Deletes every lease of the owner and its instance row: it stopped.
	 * @param connection the connection, in a transaction
	 * @throws SQLException when the database failed
	 */
	void leave(Connection connection) throws SQLException {
		for (String table : List.of(this.tables.lease(), this.tables.instance())) {
			String column = table.equals(this.tables.lease()) ? "owner_id" : "instance_id";
			try (PreparedStatement delete = connection
				.prepareStatement("DELETE FROM " + table + " WHERE group_id = ? AND " + column + " = ?")) {
				delete.setString(1, table.equals(this.tables.lease()) ? this.group : this.members);
				delete.setString(2, this.owner);
				delete.executeUpdate();
			}
		}
	}

	private void writeInstance(Connection connection, long now) throws SQLException {
		try (PreparedStatement update = connection.prepareStatement("UPDATE " + this.tables.instance()
				+ " SET heartbeat_at = ? WHERE group_id = ? AND instance_id = ?")) {
			update.setLong(1, now);
			update.setString(2, this.members);
			update.setString(3, this.owner);
			if (update.executeUpdate() == 0) {
				try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.tables.instance()
						+ " (group_id, instance_id, heartbeat_at) VALUES (?, ?, ?)")) {
					insert.setString(1, this.members);
					insert.setString(2, this.owner);
					insert.setLong(3, now);
					insert.executeUpdate();
				}
			}
		}
		try (PreparedStatement forget = connection.prepareStatement(
				"DELETE FROM " + this.tables.instance() + " WHERE group_id = ? AND heartbeat_at < ?")) {
			forget.setString(1, this.members);
			forget.setLong(2, now - FORGET_AFTER_LEASES * this.leaseMillis);
			forget.executeUpdate();
		}
	}

	private Map<TopicPartition, String> owners(Connection connection, long now) throws SQLException {
		Map<TopicPartition, String> owners = new HashMap<>();
		try (PreparedStatement select = connection.prepareStatement("SELECT topic, queue_id, owner_id FROM "
				+ this.tables.lease() + " WHERE group_id = ? AND expires_at >= ?")) {
			select.setString(1, this.group);
			select.setLong(2, now);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					owners.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getString(3));
				}
			}
		}
		return owners;
	}

	/** The group and its sorted topics, within the 255 characters of the column. */
	static String members(String group, Collection<String> topics) {
		String members = group + "|" + String.join(",", new TreeSet<>(topics));
		return (members.length() <= 255) ? members
				: group.substring(0, Math.min(group.length(), 200)) + "|#" + Integer.toHexString(members.hashCode());
	}

}

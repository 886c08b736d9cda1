package io.batchconsumer.jdbc;

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

import io.batchconsumer.core.TopicPartition;

/**
 * The lease and member tables of one clustering consumer (one owner id in one group).
 *
 * <p>The owner id names one source (one container of one instance), and a member row is written
 * for each topic it subscribes to: a topic's queues are shared among the members subscribed to that
 * topic only, as Kafka's assignors do, so two containers of one group on different topics do not
 * halve each other's share.
 *
 * <p>A heartbeat writes the member rows, extends every lease the owner holds to now + lease
 * duration, and reads the live members of each topic (a heartbeat within one lease duration) and
 * every unexpired lease of the group. A lease is taken only when it is missing, expired, or already
 * the owner's, so two owners never hold one queue at once as long as their clocks agree to within
 * the safety margin the source keeps.
 *
 * <p>Threading: stateless apart from immutable fields; thread-safe (the source's owner thread
 * heartbeats, and a {@link LeaseKeeper} thread renews while the owner thread drains a revoked queue).
 */
final class QueueLeases {

	/** Member rows without a heartbeat for this many lease durations are deleted. */
	private static final int FORGET_AFTER_LEASES = 10;

	private final JdbcTables tables;

	private final String group;

	private final String owner;

	private final long leaseMillis;

	QueueLeases(JdbcTables tables, String group, String owner, Duration lease) {
		this.tables = tables;
		this.group = group;
		this.owner = owner;
		this.leaseMillis = lease.toMillis();
	}

	/**
	 * What a heartbeat saw.
	 * @param members the live members of the group per topic, each list sorted by id
	 * @param owners the owner of every unexpired lease of the group
	 */
	record View(Map<String, List<String>> members, Map<TopicPartition, String> owners) {

		/**
		 * The live members subscribed to a topic.
		 * @param topic the topic
		 * @return their ids, sorted
		 */
		List<String> live(String topic) {
			return this.members.getOrDefault(topic, List.of());
		}

	}

	String owner() {
		return this.owner;
	}

	/**
	 * Writes the heartbeat of every subscribed topic, renews the owner's leases and reads the
	 * group's state.
	 * @param connection the connection, in a transaction
	 * @param topics the topics the owner subscribes to
	 * @param now the time
	 * @return the view after the renewal
	 * @throws SQLException when the database failed
	 */
	View heartbeat(Connection connection, Collection<String> topics, long now) throws SQLException {
		writeMembers(connection, topics, now);
		renew(connection, now);
		Map<String, List<String>> members = new HashMap<>();
		try (PreparedStatement select = connection.prepareStatement("SELECT topic, member_id FROM "
				+ this.tables.member() + " WHERE group_id = ? AND heartbeat_at > ? ORDER BY topic, member_id")) {
			select.setString(1, this.group);
			select.setLong(2, now - this.leaseMillis);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					members.computeIfAbsent(rs.getString(1), (topic) -> new ArrayList<>()).add(rs.getString(2));
				}
			}
		}
		return new View(members, owners(connection, now));
	}

	/**
	 * Extends every lease the owner still holds to now + lease duration.
	 * @param connection the connection, in a transaction
	 * @param now the time
	 * @throws SQLException when the database failed
	 */
	void renew(Connection connection, long now) throws SQLException {
		try (PreparedStatement renew = connection.prepareStatement(
				"UPDATE " + this.tables.lease() + " SET expires_at = ? WHERE group_id = ? AND owner_id = ?")) {
			renew.setLong(1, now + this.leaseMillis);
			renew.setString(2, this.group);
			renew.setString(3, this.owner);
			renew.executeUpdate();
		}
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
	 * Deletes every lease and member row of the owner: it stopped.
	 * @param connection the connection, in a transaction
	 * @throws SQLException when the database failed
	 */
	void leave(Connection connection) throws SQLException {
		for (String table : List.of(this.tables.lease(), this.tables.member())) {
			String column = table.equals(this.tables.lease()) ? "owner_id" : "member_id";
			try (PreparedStatement delete = connection
				.prepareStatement("DELETE FROM " + table + " WHERE group_id = ? AND " + column + " = ?")) {
				delete.setString(1, this.group);
				delete.setString(2, this.owner);
				delete.executeUpdate();
			}
		}
	}

	private void writeMembers(Connection connection, Collection<String> topics, long now) throws SQLException {
		try (PreparedStatement update = connection.prepareStatement("UPDATE " + this.tables.member()
				+ " SET heartbeat_at = ? WHERE group_id = ? AND topic = ? AND member_id = ?")) {
			for (String topic : topics) {
				update.setLong(1, now);
				update.setString(2, this.group);
				update.setString(3, topic);
				update.setString(4, this.owner);
				if (update.executeUpdate() == 0) {
					insertMember(connection, topic, now);
				}
			}
		}
		try (PreparedStatement forget = connection.prepareStatement(
				"DELETE FROM " + this.tables.member() + " WHERE group_id = ? AND heartbeat_at < ?")) {
			forget.setString(1, this.group);
			forget.setLong(2, now - FORGET_AFTER_LEASES * this.leaseMillis);
			forget.executeUpdate();
		}
	}

	private void insertMember(Connection connection, String topic, long now) throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.tables.member()
				+ " (group_id, topic, member_id, heartbeat_at) VALUES (?, ?, ?, ?)")) {
			insert.setString(1, this.group);
			insert.setString(2, topic);
			insert.setString(3, this.owner);
			insert.setLong(4, now);
			insert.executeUpdate();
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

}


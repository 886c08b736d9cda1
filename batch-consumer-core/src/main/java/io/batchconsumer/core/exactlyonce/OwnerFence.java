package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.internal.SqlStates;

/**
 * The owner epochs of the partitions, the table {@code <prefix>fences}: one row per group and
 * partition. An instance that is assigned a partition increments its epoch ({@link #claim}) before
 * it reads the partition's marks; every delivery transaction then ends by reading the epoch under a
 * row lock ({@link #check}) and rolls back when it changed. So a zombie (an instance still running
 * a slice of a partition that moved) cannot commit after the new owner read the marks: either its
 * commit came first, and the claim (which waits for the lock) and the marks read after it see it,
 * or the claim came first, and its check sees the new epoch.
 *
 * <p>The lock is shared where the database has shared row locks (PostgreSQL {@code FOR SHARE},
 * MySQL and MariaDB {@code LOCK IN SHARE MODE}), so deliveries of one partition commit side by
 * side; on H2 it is {@code FOR UPDATE}. It is taken by the last statement and held only for the
 * commit.
 *
 * <p>Threading: thread-safe (the lock clause is found once, racily and idempotently).
 */
final class OwnerFence {

	private final String table;

	private volatile String lockClause;

	OwnerFence(String prefix) {
		this.table = prefix + "fences";
	}

	String name() {
		return this.table;
	}

	String ddl() {
		return "CREATE TABLE IF NOT EXISTS " + this.table + " (group_id VARCHAR(255) NOT NULL,"
				+ " topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL, epoch BIGINT NOT NULL,"
				+ " PRIMARY KEY (group_id, topic, queue_id))";
	}

	/**
	 * Makes this instance the partition's owner: increments its epoch, in a transaction of its own.
	 * @param connection a connection, not in a transaction
	 * @param group the group
	 * @param partition the partition
	 * @return the new epoch
	 * @throws SQLException when the database failed
	 */
	long claim(Connection connection, String group, TopicPartition partition) throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		connection.setAutoCommit(false);
		try {
			if (update(connection, group, partition) == 0) {
				try {
					insert(connection, group, partition);
				}
				catch (SQLException ex) {
					if (!SqlStates.isDuplicateKey(ex)) {
						throw ex;
					}
					connection.rollback(); // another instance inserted it first: take the next epoch
					update(connection, group, partition);
				}
			}
			long epoch = read(connection, group, partition, "");
			connection.commit();
			return epoch;
		}
		catch (SQLException | RuntimeException ex) {
			connection.rollback();
			throw ex;
		}
		finally {
			connection.setAutoCommit(autoCommit);
		}
	}

	/**
	 * The last statement of a delivery: fails it when the partition has another owner now.
	 * @param connection the delivery's connection, in its transaction
	 * @param group the group
	 * @param partition the partition
	 * @param epoch the epoch this instance claimed
	 * @throws MarkConflictException when the epoch changed
	 * @throws SQLException when the database failed
	 */
	void check(Connection connection, String group, TopicPartition partition, long epoch) throws SQLException {
		long current = read(connection, group, partition, lockClause(connection));
		if (current != epoch) {
			throw new MarkConflictException(partition + " has another owner now (epoch " + current
					+ ", this delivery's " + epoch + " in " + this.table + "); this delivery rolls back");
		}
	}

	private int update(Connection connection, String group, TopicPartition partition) throws SQLException {
		try (PreparedStatement update = connection.prepareStatement("UPDATE " + this.table
				+ " SET epoch = epoch + 1 WHERE group_id = ? AND topic = ? AND queue_id = ?")) {
			bind(update, group, partition);
			return update.executeUpdate();
		}
	}

	private void insert(Connection connection, String group, TopicPartition partition) throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.table
				+ " (group_id, topic, queue_id, epoch) VALUES (?, ?, ?, 1)")) {
			bind(insert, group, partition);
			insert.executeUpdate();
		}
	}

	private long read(Connection connection, String group, TopicPartition partition, String lock) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement("SELECT epoch FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ?" + lock)) {
			bind(select, group, partition);
			try (ResultSet rs = select.executeQuery()) {
				return rs.next() ? rs.getLong(1) : 0;
			}
		}
	}

	private static void bind(PreparedStatement statement, String group, TopicPartition partition) throws SQLException {
		statement.setString(1, group);
		statement.setString(2, partition.topic());
		statement.setInt(3, partition.partition());
	}

	private String lockClause(Connection connection) throws SQLException {
		String clause = this.lockClause;
		if (clause == null) {
			String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
			if (product.contains("postgres")) {
				clause = " FOR SHARE";
			}
			else if (product.contains("mysql") || product.contains("mariadb")) {
				clause = " LOCK IN SHARE MODE";
			}
			else {
				clause = " FOR UPDATE";
			}
			this.lockClause = clause;
		}
		return clause;
	}

}

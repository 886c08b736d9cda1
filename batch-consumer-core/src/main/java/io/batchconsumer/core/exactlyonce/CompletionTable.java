package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;

/**
 * The completion table {@code <prefix>completed} (by default {@code bc_completed}): one row per
 * finished message of a group, keyed by group, topic, partition and offset. The primary key is
 * the fence: a second transaction marking the same message fails and rolls back.
 *
 * <p>The same statement creates it on H2, PostgreSQL and MySQL/MariaDB.
 *
 * <p>Threading: immutable; thread-safe.
 */
public final class CompletionTable {

	/** The most rows one {@code INSERT} carries (five parameters each, far below any driver's limit). */
	private static final int ROWS_PER_INSERT = 200;

	private final String table;

	/**
	 * Names the table.
	 * @param prefix the table prefix, {@code bc_} by default
	 */
	public CompletionTable(String prefix) {
		if (!prefix.matches("[A-Za-z0-9_]*")) {
			throw new IllegalArgumentException("table prefix must be letters, digits or '_' but was '" + prefix + "'");
		}
		this.table = prefix + "completed";
	}

	/**
	 * The table name.
	 * @return for example {@code bc_completed}
	 */
	public String name() {
		return this.table;
	}

	/**
	 * The DDL, idempotent.
	 * @return the {@code CREATE TABLE IF NOT EXISTS} statement
	 */
	public String ddl() {
		return "CREATE TABLE IF NOT EXISTS " + this.table + " (group_id VARCHAR(255) NOT NULL, topic VARCHAR(200) NOT NULL,"
				+ " queue_id INT NOT NULL, msg_offset BIGINT NOT NULL, completed_at BIGINT NOT NULL,"
				+ " PRIMARY KEY (group_id, topic, queue_id, msg_offset))";
	}

	/**
	 * Creates the table when it does not exist.
	 * @param dataSource the database
	 * @throws IllegalStateException when it cannot be created
	 */
	public void create(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(ddl());
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create the completion table " + this.table
					+ " of exactly-once processing: " + ex.getMessage() + "; create it yourself: " + ddl(), ex);
		}
	}

	/**
	 * Marks messages finished, inside the caller's transaction.
	 * @param connection the transaction's connection
	 * @param group the consumer group
	 * @param messages the finished messages
	 * @throws MarkConflictException when one of them is marked already
	 * @throws SQLException when the database failed otherwise
	 */
	void mark(Connection connection, String group, List<Message<byte[]>> messages) throws SQLException {
		long now = System.currentTimeMillis();
		try {
			for (int from = 0; from < messages.size(); from += ROWS_PER_INSERT) {
				insert(connection, group, messages.subList(from, Math.min(from + ROWS_PER_INSERT, messages.size())), now);
			}
		}
		catch (SQLException ex) {
			if (isDuplicateKey(ex)) {
				throw new MarkConflictException("Another transaction marked a message of " + messages.get(0)
						.topicPartition() + " in " + this.table + " first; this delivery rolls back", ex);
			}
			throw ex;
		}
	}

	/** One multi-row {@code INSERT}: a single statement and round trip for a whole slice. */
	private void insert(Connection connection, String group, List<Message<byte[]>> messages, long now)
			throws SQLException {
		StringBuilder sql = new StringBuilder("INSERT INTO ").append(this.table)
			.append(" (group_id, topic, queue_id, msg_offset, completed_at) VALUES ");
		for (int i = 0; i < messages.size(); i++) {
			sql.append((i == 0) ? "(?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?)");
		}
		try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
			int index = 1;
			for (Message<byte[]> message : messages) {
				insert.setString(index++, group);
				insert.setString(index++, message.topic());
				insert.setInt(index++, message.partition());
				insert.setLong(index++, message.offset());
				insert.setLong(index++, now);
			}
			insert.executeUpdate();
		}
	}

	/**
	 * The marked offsets of a partition at or above a position.
	 * @param connection a connection
	 * @param group the group
	 * @param partition the partition
	 * @param from the least offset
	 * @return the offsets
	 * @throws SQLException when the database failed
	 */
	List<Long> load(Connection connection, String group, TopicPartition partition, long from) throws SQLException {
		List<Long> offsets = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement("SELECT msg_offset FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND msg_offset >= ?")) {
			select.setString(1, group);
			select.setString(2, partition.topic());
			select.setInt(3, partition.partition());
			select.setLong(4, from);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					offsets.add(rs.getLong(1));
				}
			}
		}
		return offsets;
	}

	/**
	 * Deletes the marks of a partition below a position.
	 * @param connection a connection in auto-commit
	 * @param group the group
	 * @param partition the partition
	 * @param below the position (exclusive)
	 * @return how many rows went
	 * @throws SQLException when the database failed
	 */
	int deleteBelow(Connection connection, String group, TopicPartition partition, long below) throws SQLException {
		try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND msg_offset < ?")) {
			delete.setString(1, group);
			delete.setString(2, partition.topic());
			delete.setInt(3, partition.partition());
			delete.setLong(4, below);
			return delete.executeUpdate();
		}
	}

	/**
	 * Whether a failure is a duplicate key: SQLSTATE class 23, anywhere in the chain.
	 * @param ex the failure
	 * @return whether it is
	 */
	static boolean isDuplicateKey(SQLException ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				String state = sql.getSQLState();
				if (state != null && state.startsWith("23")) {
					return true;
				}
				SQLException next = sql.getNextException();
				if (next != null && next != sql && next.getSQLState() != null && next.getSQLState().startsWith("23")) {
					return true;
				}
			}
		}
		return false;
	}

}

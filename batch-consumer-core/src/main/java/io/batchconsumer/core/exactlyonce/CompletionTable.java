package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.internal.SqlStates;

/**
 * The completion table {@code <prefix>completions} (by default {@code bc_completions}): one row per
 * committed delivery of a slice, keyed by group, topic, partition and the slice's first offset,
 * holding which offsets it finished ({@link OffsetRuns}: {@code 0-49} for a contiguous slice of
 * 50). One row per slice, not one per message, keeps the marks' cost to one index entry per
 * delivery. The fence against a second owner is the partition's owner epoch ({@link OwnerFence},
 * table {@code <prefix>fences}), which each delivery checks as its last statement; the primary key
 * still fails a second transaction that marks a slice with the same first offset.
 *
 * <p>The same statements create both tables on H2, PostgreSQL and MySQL/MariaDB. On SQLite the
 * completion table is {@code WITHOUT ROWID}: its rows live in the primary key's b-tree, where a
 * table with a rowid keeps them in a second one, so each delivery's commit writes one page less to
 * the file's single writer. A table created before with a rowid keeps working as it is.
 *
 * <p>Threading: thread-safe.
 */
public final class CompletionTable {

	/** The most rows one {@code INSERT} carries (seven parameters each, far below any driver's limit). */
	private static final int ROWS_PER_INSERT = 100;

	private final String table;

	private final OwnerFence fence;

	/**
	 * Names the tables.
	 * @param prefix the table prefix, {@code bc_} by default
	 */
	public CompletionTable(String prefix) {
		if (!prefix.matches("[A-Za-z0-9_]*")) {
			throw new IllegalArgumentException("table prefix must be letters, digits or '_' but was '" + prefix + "'");
		}
		this.table = prefix + "completions";
		this.fence = new OwnerFence(prefix);
	}

	/**
	 * The table name.
	 * @return for example {@code bc_completions}
	 */
	public String name() {
		return this.table;
	}

	/**
	 * The DDL of the completion table and of the owner epochs, idempotent.
	 * @return the {@code CREATE TABLE IF NOT EXISTS} statements
	 */
	public List<String> ddl() {
		return ddl("");
	}

	private List<String> ddl(String tableOptions) {
		return List.of("CREATE TABLE IF NOT EXISTS " + this.table + " (group_id VARCHAR(255) NOT NULL,"
				+ " topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL, first_offset BIGINT NOT NULL,"
				+ " last_offset BIGINT NOT NULL, mark_count INT NOT NULL, offsets VARCHAR(" + OffsetRuns.MAX_LENGTH
				+ ") NOT NULL, completed_at BIGINT NOT NULL, PRIMARY KEY (group_id, topic, queue_id, first_offset))"
				+ tableOptions, this.fence.ddl());
	}

	/**
	 * Creates the tables when they do not exist.
	 * @param dataSource the database
	 * @throws IllegalStateException when they cannot be created
	 */
	public void create(DataSource dataSource) {
		List<String> ddl = ddl();
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			if ("SQLite".equalsIgnoreCase(connection.getMetaData().getDatabaseProductName())) {
				ddl = ddl(" WITHOUT ROWID");
			}
			for (String create : ddl) {
				statement.execute(create);
			}
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create the completion tables " + this.table + " and "
					+ this.fence.name() + " of exactly-once processing: " + ex.getMessage() + "; create them yourself: "
					+ String.join("; ", ddl), ex);
		}
	}

	/**
	 * Makes this instance the owner of a partition's marks (see {@link OwnerFence}).
	 * @param connection a connection, not in a transaction
	 * @param group the group
	 * @param partition the partition
	 * @return the epoch its deliveries check
	 * @throws SQLException when the database failed
	 */
	long claim(Connection connection, String group, TopicPartition partition) throws SQLException {
		return this.fence.claim(connection, group, partition);
	}

	/**
	 * Marks offsets of one partition finished, inside the caller's transaction, then checks that the
	 * partition still has the owner epoch this instance claimed.
	 * @param connection the transaction's connection
	 * @param group the consumer group
	 * @param partition the partition
	 * @param rows the rows of the finished offsets ({@link OffsetRuns#rows})
	 * @param probes keys of rows of unknown outcome to probe first ({@link CompletionMarks#probesFor}): a
	 *        row is inserted and deleted again under each, which collides when that row exists
	 * @param epoch the epoch this instance claimed for the partition
	 * @throws MarkConflictException when a row's key is marked already or the partition has another owner
	 * @throws SQLException when the database failed otherwise
	 */
	void mark(Connection connection, String group, TopicPartition partition, List<OffsetRuns.Row> rows,
			List<Long> probes, long epoch) throws SQLException {
		long now = System.currentTimeMillis();
		try {
			for (long key : probes) {
				insert(connection, group, partition, List.of(new OffsetRuns.Row(key, key, 0, "")), now);
				deleteRow(connection, group, partition, key);
			}
			for (int from = 0; from < rows.size(); from += ROWS_PER_INSERT) {
				insert(connection, group, partition, rows.subList(from, Math.min(from + ROWS_PER_INSERT, rows.size())),
						now);
			}
		}
		catch (SQLException ex) {
			if (SqlStates.isDuplicateKey(ex)) {
				throw new MarkConflictException(MarkConflictException.Kind.MARKED,
						"Another transaction marked a message of " + partition + " in "
						+ this.table + " first; this delivery rolls back", ex);
			}
			throw ex;
		}
		this.fence.check(connection, group, partition, epoch);
	}

	private void deleteRow(Connection connection, String group, TopicPartition partition, long key)
			throws SQLException {
		try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND first_offset = ?")) {
			bind(delete, group, partition);
			delete.setLong(4, key);
			delete.executeUpdate();
		}
	}

	/** One multi-row {@code INSERT}: a single statement and round trip for a whole slice. */
	private void insert(Connection connection, String group, TopicPartition partition, List<OffsetRuns.Row> rows,
			long now) throws SQLException {
		StringBuilder sql = new StringBuilder("INSERT INTO ").append(this.table)
			.append(" (group_id, topic, queue_id, first_offset, last_offset, mark_count, offsets, completed_at)")
			.append(" VALUES ");
		for (int i = 0; i < rows.size(); i++) {
			sql.append((i == 0) ? "(?, ?, ?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?, ?, ?)");
		}
		try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
			int index = 1;
			for (OffsetRuns.Row row : rows) {
				insert.setString(index++, group);
				insert.setString(index++, partition.topic());
				insert.setInt(index++, partition.partition());
				insert.setLong(index++, row.first());
				insert.setLong(index++, row.last());
				insert.setInt(index++, row.count());
				insert.setString(index++, row.text());
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
		try (PreparedStatement select = connection.prepareStatement("SELECT first_offset, offsets FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND last_offset >= ?")) {
			bind(select, group, partition);
			select.setLong(4, from);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					OffsetRuns.read(rs.getLong(1), rs.getString(2), from, offsets);
				}
			}
		}
		return offsets;
	}

	/**
	 * Every marked offset of a partition, for diagnostics and tests.
	 * @param dataSource the database
	 * @param group the group
	 * @param partition the partition
	 * @return the offsets, ascending
	 * @throws IllegalStateException when the database failed
	 */
	public List<Long> marks(DataSource dataSource, String group, TopicPartition partition) {
		try (Connection connection = dataSource.getConnection()) {
			return load(connection, group, partition, 0).stream().sorted().toList();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read " + this.table + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * How many messages are marked in the table, over every group and partition.
	 * @param dataSource the database
	 * @return the number of marks
	 * @throws IllegalStateException when the database failed
	 */
	public long markCount(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT COALESCE(SUM(mark_count), 0) FROM " + this.table)) {
			return rs.next() ? rs.getLong(1) : 0;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read " + this.table + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Deletes the rows of a partition whose every mark is below a position.
	 * @param connection a connection in auto-commit
	 * @param group the group
	 * @param partition the partition
	 * @param below the position (exclusive)
	 * @return how many rows went
	 * @throws SQLException when the database failed
	 */
	int deleteBelow(Connection connection, String group, TopicPartition partition, long below) throws SQLException {
		try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND last_offset < ?")) {
			bind(delete, group, partition);
			delete.setLong(4, below);
			return delete.executeUpdate();
		}
	}

	private static void bind(PreparedStatement statement, String group, TopicPartition partition) throws SQLException {
		statement.setString(1, group);
		statement.setString(2, partition.topic());
		statement.setInt(3, partition.partition());
	}

}

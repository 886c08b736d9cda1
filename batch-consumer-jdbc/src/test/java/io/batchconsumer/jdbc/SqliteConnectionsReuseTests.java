package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A connection of {@link SqliteConnections} in manual-commit mode, used across several transactions
 * with statements prepared once (the plain JDBC loop: prepare, then execute and commit again and
 * again): each transaction after a {@code commit()} reads what other connections committed before
 * it began, and is a transaction in the configured mode ({@code IMMEDIATE}): one that reads and then
 * writes waits for another writer instead of failing with {@code SQLITE_BUSY_SNAPSHOT}.
 */
@Tag("integration")
class SqliteConnectionsReuseTests {

	@TempDir
	Path dir;

	private SqliteConnections connections;

	private Connection other;

	@BeforeEach
	void openFile() throws SQLException {
		String url = "jdbc:sqlite:" + this.dir.resolve("reuse.db");
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("busy_timeout", "2000");
		this.connections = new SqliteConnections(url, properties);
		this.other = DriverManager.getConnection(url, properties);
		try (Statement statement = this.other.createStatement()) {
			statement.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
		}
	}

	@AfterEach
	void close() throws SQLException {
		this.other.close();
	}

	@Test
	void aTransactionAfterCommitSeesWhatOthersCommittedBeforeItBeganThroughNewAndOldStatements() throws SQLException {
		try (Connection connection = this.connections.getConnection();
				PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM t")) {
			connection.setAutoCommit(false);
			assertThat(count(count)).isZero();
			connection.commit();
			insertByOther(1);
			assertThat(count(count)).as("an old statement after commit()").isEqualTo(1);
			connection.commit();
			insertByOther(2);
			try (PreparedStatement fresh = connection.prepareStatement("SELECT COUNT(*) FROM t")) {
				assertThat(count(fresh)).as("a new statement after commit()").isEqualTo(2);
			}
			connection.rollback();
			insertByOther(3);
			assertThat(count(count)).as("an old statement after rollback()").isEqualTo(3);
			connection.setAutoCommit(true);
			insertByOther(4);
			assertThat(count(count)).as("in auto-commit mode").isEqualTo(4);
			assertThat(count.getConnection()).isSameAs(connection);
		}
	}

	/**
	 * The loop's second transaction reads, another connection commits a write, and the transaction
	 * writes: in a transaction begun {@code IMMEDIATE} the other write waited for this one; in a
	 * deferred one the write fails at once, as its snapshot is older than the file.
	 */
	@Test
	void aReadThenWriteTransactionOfOldStatementsAfterCommitIsImmediate() throws SQLException {
		try (Connection connection = this.connections.getConnection();
				PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM t");
				PreparedStatement insert = connection.prepareStatement("INSERT INTO t (id) VALUES (?)")) {
			connection.setAutoCommit(false);
			for (int id = 1; id <= 2; id++) {
				int before = count(count);
				boolean othersWrite = tryInsertByOther(100 + id);
				insert.setInt(1, id);
				insert.executeUpdate();
				connection.commit();
				assertThat(othersWrite).as("transaction %d holds the write lock from its start", id).isFalse();
				assertThat(before).isEqualTo(id - 1);
			}
			connection.setAutoCommit(true);
		}
	}

	private static int count(PreparedStatement count) throws SQLException {
		try (ResultSet rows = count.executeQuery()) {
			rows.next();
			return rows.getInt(1);
		}
	}

	private void insertByOther(int id) throws SQLException {
		try (Statement statement = this.other.createStatement()) {
			statement.execute("INSERT INTO t (id) VALUES (" + id + ")");
		}
	}

	/** Whether another connection could write now, within a short busy wait. */
	private boolean tryInsertByOther(int id) throws SQLException {
		try (Statement statement = this.other.createStatement()) {
			statement.execute("PRAGMA busy_timeout = 50");
			statement.execute("INSERT INTO t (id) VALUES (" + id + ")");
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
		finally {
			try (Statement statement = this.other.createStatement()) {
				statement.execute("PRAGMA busy_timeout = 2000");
			}
		}
	}

}

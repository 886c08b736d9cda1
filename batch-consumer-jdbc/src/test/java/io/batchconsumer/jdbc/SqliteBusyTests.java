package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.internal.SqlStates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * SQLite's one writer at a time: a transaction that cannot take the file's write lock within the
 * busy timeout fails with {@code SQLITE_BUSY}, which counts as transient, and leaves its pooled
 * connection fit for the next transaction. (The driver marks a connection as in a transaction
 * before its {@code BEGIN IMMEDIATE} ran; when that {@code BEGIN} fails the connection would run the
 * next transaction's statements one by one in auto-commit.)
 */
@Tag("integration")
class SqliteBusyTests {

	private static final int BUSY_TIMEOUT_MS = 1000;

	@TempDir
	Path dir;

	private HikariDataSource pool;

	private Connection holder;

	@BeforeEach
	void openFile() throws SQLException {
		String url = "jdbc:sqlite:" + this.dir.resolve("busy.db");
		this.pool = new HikariDataSource();
		this.pool.setJdbcUrl(url);
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("busy_timeout", Integer.toString(BUSY_TIMEOUT_MS));
		this.pool.setDataSourceProperties(properties);
		this.pool.setMaximumPoolSize(1); // the connection whose BEGIN failed is the next one handed out
		this.pool.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
		TestDatabases.execute(this.pool, "CREATE TABLE t (id INTEGER PRIMARY KEY)");
		this.holder = DriverManager.getConnection(url);
	}

	@AfterEach
	void close() throws SQLException {
		this.holder.close();
		this.pool.close();
	}

	@Test
	void aTransactionThatFindsTheWriteLockTakenFailsTransientlyAndTheNextOneIsWhole() throws Exception {
		Sql sql = new Sql(this.pool);
		holdWriteLock();
		SQLException busy = catchThrowableOfType(SQLException.class, () -> sql.inTransactionOrThrow((connection) -> insert(connection, 1)));
		assertThat((Throwable) busy).as("a write while another connection holds the lock").isNotNull();
		assertThat(Sql.isTransient(busy)).as("SQLITE_BUSY is transient: %s", busy).isTrue();
		assertThat(SqlStates.isDuplicateKey(busy)).isFalse();
		releaseWriteLock();

		SQLException failed = catchThrowableOfType(SQLException.class, () -> sql.inTransactionOrThrow((connection) -> {
			insert(connection, 2);
			throw new SQLException("the work failed after its first statement");
		}));
		assertThat((Throwable) failed).hasMessage("the work failed after its first statement");
		assertThat(TestDatabases.count(this.pool, "SELECT COUNT(*) FROM t")).as("rows of the rolled-back transaction")
			.isZero();
		sql.inTransactionOrThrow((connection) -> insert(connection, 3));
		assertThat(TestDatabases.count(this.pool, "SELECT COUNT(*) FROM t")).isEqualTo(1);
	}

	@Test
	void aDuplicateKeyOnSqliteIsADuplicateKey() throws Exception {
		Sql sql = new Sql(this.pool);
		sql.inTransactionOrThrow((connection) -> insert(connection, 1));
		SQLException duplicate = catchThrowableOfType(SQLException.class,
				() -> sql.inTransactionOrThrow((connection) -> insert(connection, 1)));
		assertThat(SqlStates.isDuplicateKey(duplicate)).as("%s", duplicate).isTrue();
		assertThat(Sql.isTransient(duplicate)).isFalse();
	}

	private void holdWriteLock() throws SQLException {
		try (Statement statement = this.holder.createStatement()) {
			this.holder.setAutoCommit(false);
			statement.execute("INSERT INTO t (id) VALUES (100)");
		}
	}

	private void releaseWriteLock() throws SQLException {
		this.holder.rollback();
		this.holder.setAutoCommit(true);
	}

	private static Void insert(Connection connection, int id) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO t (id) VALUES (" + id + ")");
		}
		return null;
	}

}

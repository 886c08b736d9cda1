package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteCommitListener;
import org.sqlite.SQLiteConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * How the transport ends a transaction on SQLite. The driver's {@code commit()} runs {@code COMMIT}
 * and at once begins the next transaction, which with {@code transaction_mode=IMMEDIATE} takes the
 * write lock again: when another writer takes the lock between the two, {@code commit()} waits out
 * the busy timeout and fails although the data is committed, and the caller would take a stored send
 * for a failed one and store it again. The transport ends its own transactions by going back to
 * auto-commit, which commits and begins nothing; the connections of {@link SqliteConnections} hold no
 * lock after {@code commit()} whoever calls it, and begin the next transaction at its first statement.
 */
@Tag("integration")
class SqliteTransactionEndTests {

	private static final int BUSY_TIMEOUT_MS = 1000;

	@TempDir
	Path dir;

	private HikariDataSource pool;

	private Connection other;

	@BeforeEach
	void openFile() throws SQLException {
		String url = "jdbc:sqlite:" + this.dir.resolve("end.db");
		this.pool = new HikariDataSource();
		this.pool.setJdbcUrl(url);
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("busy_timeout", Integer.toString(BUSY_TIMEOUT_MS));
		this.pool.setDataSourceProperties(properties);
		this.pool.setMaximumPoolSize(1);
		this.pool.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
		TestDatabases.execute(this.pool, "CREATE TABLE t (id INTEGER PRIMARY KEY)");
		this.other = DriverManager.getConnection(url, properties);
	}

	@AfterEach
	void close() throws SQLException {
		this.other.close();
		this.pool.close();
	}

	/**
	 * Another connection takes the write lock as soon as the transaction's {@code COMMIT} has given it
	 * back (a progress handler holds the first statement after the commit until it has), and keeps it
	 * for longer than the busy timeout.
	 */
	@Test
	void aCommittedTransactionIsNotReportedFailedWhenAnotherWriterTakesTheLockRightAfterItsCommit() throws Exception {
		Sql sql = new Sql(this.pool);
		CountDownLatch otherHoldsLock = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch committed = new CountDownLatch(1);
		Thread writer = new Thread(() -> holdLockAfterCommit(committed, otherHoldsLock, release), "other-writer");
		try (Connection connection = this.pool.getConnection()) {
			SQLiteConnection sqlite = connection.unwrap(SQLiteConnection.class);
			sqlite.addCommitListener(new SQLiteCommitListener() {
				@Override
				public void onCommit() {
					committed.countDown();
				}

				@Override
				public void onRollback() {
				}
			});
			ProgressHandler.setHandler(sqlite, 1, new ProgressHandler() {
				@Override
				protected int progress() throws SQLException {
					if (committed.getCount() == 0 && otherHoldsLock.getCount() > 0) {
						awaitQuietly(otherHoldsLock);
					}
					return 0;
				}
			});
		}
		writer.start();
		Throwable failure = null;
		try {
			sql.inTransactionOrThrow((connection) -> insert(connection, 1));
		}
		catch (SQLException ex) {
			failure = ex;
		}
		finally {
			release.countDown();
			writer.join(10_000);
		}
		assertThat(otherHoldsLock.getCount()).as("the other writer took the lock after the commit").isZero();
		assertThat(TestDatabases.count(this.pool, "SELECT COUNT(*) FROM t")).as("the row is committed").isEqualTo(1);
		assertThat(failure).as("the commit of a committed transaction").isNull();
	}

	/**
	 * A transaction manager's sequence (Spring's: {@code setAutoCommit(false)}, work, {@code commit()},
	 * its after-commit callbacks, {@code setAutoCommit(true)}) on a connection of
	 * {@link SqliteConnections}: after {@code commit()} the connection holds no write lock, and the
	 * next transaction on it still takes the lock when it begins and is atomic.
	 */
	@Test
	void aConnectionOfSqliteConnectionsHoldsNoWriteLockAfterCommitAndItsNextTransactionIsWhole() throws Exception {
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("busy_timeout", Integer.toString(BUSY_TIMEOUT_MS));
		SqliteConnections connections = new SqliteConnections("jdbc:sqlite:" + this.dir.resolve("end.db"), properties);
		try (Connection connection = connections.getConnection(); Statement other = this.other.createStatement()) {
			connection.setAutoCommit(false);
			insert(connection, 1);
			connection.commit();
			other.execute("BEGIN IMMEDIATE"); // waits out the busy timeout while the connection holds the lock
			other.execute("ROLLBACK");

			insert(connection, 2);
			assertThat((Throwable) catchThrowableOfType(SQLException.class, () -> other.execute("BEGIN IMMEDIATE")))
				.as("a write while the next transaction runs").isNotNull();
			connection.rollback();
			insert(connection, 3);
			connection.commit();
			connection.setAutoCommit(true);
			assertThat(connection.getAutoCommit()).isTrue();
			insert(connection, 4);
		}
		assertThat(TestDatabases.count(this.pool, "SELECT COUNT(*) FROM t WHERE id IN (1, 3, 4)")).isEqualTo(3);
		assertThat(TestDatabases.count(this.pool, "SELECT COUNT(*) FROM t")).as("the rolled-back row").isEqualTo(3);
	}

	private void holdLockAfterCommit(CountDownLatch committed, CountDownLatch holds, CountDownLatch release) {
		try (Statement statement = this.other.createStatement()) {
			committed.await(10, TimeUnit.SECONDS);
			statement.execute("BEGIN IMMEDIATE");
			holds.countDown();
			release.await(BUSY_TIMEOUT_MS * 3L, TimeUnit.MILLISECONDS);
			statement.execute("ROLLBACK");
		}
		catch (SQLException | InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static Void insert(Connection connection, int id) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO t (id) VALUES (" + id + ")");
		}
		return null;
	}

}

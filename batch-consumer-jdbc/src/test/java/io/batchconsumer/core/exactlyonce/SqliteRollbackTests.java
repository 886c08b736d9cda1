package io.batchconsumer.core.exactlyonce;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
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

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.jdbc.SqliteSettings;
import io.batchconsumer.testsupport.Fault;
import io.batchconsumer.testsupport.FaultRule;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A delivery or a claim that fails on a SQLite pool of the driver's own connections: the driver's
 * {@code rollback()} begins the next transaction at once ({@code BEGIN IMMEDIATE}), which waits out
 * the busy timeout when another writer took the lock right after the rollback (a progress handler
 * holds the statement after the rollback until another connection holds the lock). Each still fails
 * with its own failure (a conflict or a lock timeout, which the caller tells apart from other
 * database failures), its rows are rolled back, and the pool's connection is usable.
 */
@Tag("integration")
class SqliteRollbackTests {

	private static final int BUSY_TIMEOUT_MS = 1000;

	@TempDir
	Path dir;

	private HikariDataSource pool;

	private Connection other;

	private final CountDownLatch rolledBack = new CountDownLatch(1);

	private final CountDownLatch otherHoldsLock = new CountDownLatch(1);

	private final CountDownLatch release = new CountDownLatch(1);

	private Thread writer;

	@BeforeEach
	void open() throws SQLException {
		String url = "jdbc:sqlite:" + this.dir.resolve("rollback.db");
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("busy_timeout", Integer.toString(BUSY_TIMEOUT_MS));
		this.pool = new HikariDataSource();
		this.pool.setJdbcUrl(url);
		this.pool.setDataSourceProperties(properties);
		this.pool.setMaximumPoolSize(1);
		this.pool.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
		this.other = DriverManager.getConnection(url, properties);
		try (Connection connection = this.pool.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
		}
	}

	@AfterEach
	void close() throws Exception {
		this.release.countDown();
		if (this.writer != null) {
			this.writer.join(10_000);
		}
		this.other.close();
		this.pool.close();
	}

	@Test
	void aFailedDeliveryFailsWithItsOwnFailureWhenAnotherWriterTakesTheLockRightAfterItsRollback() throws Exception {
		holdLockRightAfterRollback();
		JdbcDeliveryTransaction transaction = new JdbcDeliveryTransaction(this.pool);
		assertThatIllegalStateException().isThrownBy(() -> transaction.execute((connection) -> {
			try (Statement statement = connection.createStatement()) {
				statement.execute("INSERT INTO t (id) VALUES (1)");
			}
			throw new IllegalStateException("the delivery's own failure");
		})).withMessage("the delivery's own failure");
		assertLockTakenAndConnectionUsable();
	}

	@Test
	void aFailedClaimFailsWithItsOwnFailureWhenAnotherWriterTakesTheLockRightAfterItsRollback() throws Exception {
		CompletionTable table = new CompletionTable("rollback_");
		table.create(this.pool);
		FaultyDataSource faulty = FaultyDataSource.wrap(this.pool)
			.add(FaultRule.sql("SELECT MAX\\(epoch\\)").times(1).fault(Fault.LOCK_TIMEOUT));
		holdLockRightAfterRollback();
		try (Connection connection = faulty.getConnection()) {
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> table.claim(connection, "group", new TopicPartition("t", 0)))
				.satisfies((ex) -> assertThat(ex.getSQLState()).as(ex.toString()).isEqualTo("HYT00"));
		}
		assertLockTakenAndConnectionUsable();
	}

	/** After the next rollback on the pool's connection, another connection takes the lock first. */
	private void holdLockRightAfterRollback() throws SQLException {
		try (Connection connection = this.pool.getConnection()) {
			SQLiteConnection sqlite = connection.unwrap(SQLiteConnection.class);
			sqlite.addCommitListener(new SQLiteCommitListener() {
				@Override
				public void onCommit() {
				}

				@Override
				public void onRollback() {
					SqliteRollbackTests.this.rolledBack.countDown();
				}
			});
			ProgressHandler.setHandler(sqlite, 1, new ProgressHandler() {
				@Override
				protected int progress() {
					if (SqliteRollbackTests.this.rolledBack.getCount() == 0
							&& SqliteRollbackTests.this.otherHoldsLock.getCount() > 0) {
						awaitQuietly(SqliteRollbackTests.this.otherHoldsLock);
					}
					return 0;
				}
			});
		}
		this.writer = new Thread(() -> {
			try (Statement statement = this.other.createStatement()) {
				this.rolledBack.await(10, TimeUnit.SECONDS);
				statement.execute("BEGIN IMMEDIATE");
				this.otherHoldsLock.countDown();
				this.release.await(BUSY_TIMEOUT_MS * 3L, TimeUnit.MILLISECONDS);
				statement.execute("ROLLBACK");
			}
			catch (SQLException | InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, "other-writer");
		this.writer.start();
	}

	private void assertLockTakenAndConnectionUsable() throws Exception {
		this.release.countDown();
		this.writer.join(10_000);
		assertThat(this.otherHoldsLock.getCount()).as("the other writer took the lock after the rollback").isZero();
		try (Connection connection = this.pool.getConnection(); Statement statement = connection.createStatement()) {
			assertThat(connection.getAutoCommit()).isTrue();
			statement.execute("INSERT INTO t (id) VALUES (2)");
			try (ResultSet rows = statement.executeQuery("SELECT group_concat(id) FROM t")) {
				rows.next();
				assertThat(rows.getString(1)).isEqualTo("2");
			}
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

}

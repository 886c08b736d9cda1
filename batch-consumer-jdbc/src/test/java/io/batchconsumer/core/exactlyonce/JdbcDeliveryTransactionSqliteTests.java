package io.batchconsumer.core.exactlyonce;

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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteCommitListener;
import org.sqlite.SQLiteConnection;

import io.batchconsumer.jdbc.SqliteSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A delivery that fails on a SQLite pool of the driver's own connections: the driver's
 * {@code rollback()} begins the next transaction at once ({@code BEGIN IMMEDIATE}), which waits out
 * the busy timeout when another writer took the lock right after the rollback. The delivery still
 * fails with its own failure (a conflict, which the caller tells apart from a database failure), its
 * rows are rolled back, and the pool's connection is usable.
 */
@Tag("integration")
class JdbcDeliveryTransactionSqliteTests {

	private static final int BUSY_TIMEOUT_MS = 1000;

	@TempDir
	Path dir;

	@Test
	void aFailedDeliveryFailsWithItsOwnFailureWhenAnotherWriterTakesTheLockRightAfterItsRollback() throws Exception {
		String url = "jdbc:sqlite:" + this.dir.resolve("delivery.db");
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("busy_timeout", Integer.toString(BUSY_TIMEOUT_MS));
		try (HikariDataSource pool = new HikariDataSource(); Connection other = DriverManager.getConnection(url, properties)) {
			pool.setJdbcUrl(url);
			pool.setDataSourceProperties(properties);
			pool.setMaximumPoolSize(1);
			pool.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
			try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
			}
			CountDownLatch rolledBack = new CountDownLatch(1);
			CountDownLatch otherHoldsLock = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			try (Connection connection = pool.getConnection()) {
				SQLiteConnection sqlite = connection.unwrap(SQLiteConnection.class);
				sqlite.addCommitListener(new SQLiteCommitListener() {
					@Override
					public void onCommit() {
					}

					@Override
					public void onRollback() {
						rolledBack.countDown();
					}
				});
				ProgressHandler.setHandler(sqlite, 1, new ProgressHandler() {
					@Override
					protected int progress() throws SQLException {
						if (rolledBack.getCount() == 0 && otherHoldsLock.getCount() > 0) {
							awaitQuietly(otherHoldsLock);
						}
						return 0;
					}
				});
			}
			Thread writer = new Thread(() -> {
				try (Statement statement = other.createStatement()) {
					rolledBack.await(10, TimeUnit.SECONDS);
					statement.execute("BEGIN IMMEDIATE");
					otherHoldsLock.countDown();
					release.await(BUSY_TIMEOUT_MS * 3L, TimeUnit.MILLISECONDS);
					statement.execute("ROLLBACK");
				}
				catch (SQLException | InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			}, "other-writer");
			writer.start();
			JdbcDeliveryTransaction transaction = new JdbcDeliveryTransaction(pool);
			try {
				assertThatIllegalStateException().isThrownBy(() -> transaction.execute((connection) -> {
					try (Statement statement = connection.createStatement()) {
						statement.execute("INSERT INTO t (id) VALUES (1)");
					}
					throw new IllegalStateException("the delivery's own failure");
				})).withMessage("the delivery's own failure");
			}
			finally {
				release.countDown();
				writer.join(10_000);
			}
			assertThat(otherHoldsLock.getCount()).as("the other writer took the lock after the rollback").isZero();
			try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
				assertThat(connection.getAutoCommit()).isTrue();
				statement.execute("INSERT INTO t (id) VALUES (2)");
				var rows = statement.executeQuery("SELECT group_concat(id) FROM t");
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

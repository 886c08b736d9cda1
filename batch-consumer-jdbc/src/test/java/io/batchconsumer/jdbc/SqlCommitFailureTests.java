package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A transaction whose {@code COMMIT} itself fails (a deferred foreign key, checked at commit) on the
 * databases that defer constraints: it is reported failed and nothing of it is kept. SQLite keeps
 * such a transaction open after the failed {@code COMMIT} while its driver already counts the
 * connection in auto-commit mode; the connection must not go back to its pool in that transaction
 * (the next unit of work on it would commit the failed one's rows, or run inside it).
 */
@Tag("integration")
class SqlCommitFailureTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "POSTGRESQL", "SQLITE" })
	void aTransactionWhoseCommitFailsIsReportedFailedAndLeavesNothing(TestDatabases.Kind kind) throws SQLException {
		try (HikariDataSource pool = pool(kind)) {
			String suffix = Long.toString(System.nanoTime());
			String parent = "cf_parent_" + suffix;
			String child = "cf_child_" + suffix;
			TestDatabases.execute(pool, "CREATE TABLE " + parent + " (id INT PRIMARY KEY)");
			TestDatabases.execute(pool, "CREATE TABLE " + child + " (id INT PRIMARY KEY, parent INT REFERENCES "
					+ parent + " (id) DEFERRABLE INITIALLY DEFERRED)");
			Sql sql = new Sql(pool);
			assertThatExceptionOfType(SQLException.class).isThrownBy(() -> sql.inTransactionOrThrow((connection) -> {
				execute(connection, "INSERT INTO " + parent + " (id) VALUES (1)");
				execute(connection, "INSERT INTO " + child + " (id, parent) VALUES (1, 99)");
				return null;
			}));
			try (Connection connection = pool.getConnection()) {
				assertThat(connection.getAutoCommit()).isTrue();
				execute(connection, "INSERT INTO " + parent + " (id) VALUES (2)");
			}
			assertThat(TestDatabases.count(pool, "SELECT COUNT(*) FROM " + child)).isZero();
			assertThat(TestDatabases.count(pool, "SELECT COUNT(*) FROM " + parent)).as("only the later row").isEqualTo(1);
		}
	}

	/**
	 * The application's own transactions on a connection of {@link SqliteConnections}, ended by
	 * {@code commit()} (after which Spring's transaction manager does not roll back, it only goes back
	 * to auto-commit mode) and by {@code setAutoCommit(true)}: a failed {@code COMMIT} is rolled back,
	 * and the connection holds no lock afterwards.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = "SQLITE")
	void aTransactionOfSqliteConnectionsWhoseCommitFailsIsRolledBackAndHoldsNoLock(TestDatabases.Kind kind)
			throws SQLException {
		try (HikariDataSource pool = pool(kind); Connection connection = pool.getConnection()) {
			execute(connection, "CREATE TABLE parent (id INT PRIMARY KEY)");
			execute(connection, "CREATE TABLE child (id INT PRIMARY KEY, parent INT REFERENCES parent (id)"
					+ " DEFERRABLE INITIALLY DEFERRED)");
			for (boolean byAutoCommit : new boolean[] { false, true }) {
				connection.setAutoCommit(false);
				execute(connection, "INSERT INTO child (id, parent) VALUES (1, 99)");
				assertThatExceptionOfType(SQLException.class)
					.isThrownBy(() -> {
						if (byAutoCommit) {
							connection.setAutoCommit(true);
						}
						else {
							connection.commit();
						}
					});
				connection.setAutoCommit(true);
				assertThat(connection.getAutoCommit()).isTrue();
				try (Connection other = new SqliteConnections(pool.getDataSource().unwrap(SqliteConnections.class).getUrl(),
						properties()).getConnection()) {
					execute(other, "PRAGMA busy_timeout = 100");
					execute(other, "INSERT INTO parent (id) VALUES (" + (byAutoCommit ? 2 : 1) + ")");
					try (Statement statement = other.createStatement();
							ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM child")) {
						rows.next();
						assertThat(rows.getInt(1)).as("by auto-commit: " + byAutoCommit).isZero();
					}
				}
			}
		}
	}

	private HikariDataSource pool(TestDatabases.Kind kind) {
		if (kind != TestDatabases.Kind.SQLITE) {
			return databases.dataSource(kind, this.dir, 1);
		}
		HikariDataSource pool = new HikariDataSource();
		pool.setDataSource(new SqliteConnections("jdbc:sqlite:" + this.dir.resolve("commit.db"), properties()));
		pool.setMaximumPoolSize(1);
		pool.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
		return pool;
	}

	private static Properties properties() {
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("foreign_keys", "true");
		return properties;
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}

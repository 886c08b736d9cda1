package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
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

	private HikariDataSource pool(TestDatabases.Kind kind) {
		if (kind != TestDatabases.Kind.SQLITE) {
			return databases.dataSource(kind, this.dir, 1);
		}
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("foreign_keys", "true");
		HikariDataSource pool = new HikariDataSource();
		pool.setDataSource(new SqliteConnections("jdbc:sqlite:" + this.dir.resolve("commit.db"), properties));
		pool.setMaximumPoolSize(1);
		pool.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
		return pool;
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}

package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What the JDBC transport applies to a SQLite database, what it refuses at start-up, and how it
 * reports a file it cannot use: each refusal names the file and the setting.
 */
@Tag("integration")
class SqliteSettingsTests {

	@TempDir
	Path dir;

	@Test
	void aFileWithTheConnectionPropertiesGetsItsTablesInWalMode() throws Exception {
		Path file = this.dir.resolve("app.db");
		JdbcSettings settings = TestDatabases.settings().withInitializeSchema(SchemaInitialization.EMBEDDED);
		try (HikariDataSource dataSource = pool("jdbc:sqlite:" + file, true);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			assertThat(transport.producer().send("t", "x").isStored()).isTrue();
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "message"))
				.isEqualTo(1);
			assertThat(text(dataSource, "PRAGMA journal_mode")).isEqualTo("wal");
			assertThat(TestDatabases.count(dataSource, "PRAGMA synchronous")).isEqualTo(1); // NORMAL
			assertThat(TestDatabases.count(dataSource, "PRAGMA busy_timeout")).isEqualTo(SqliteSettings.BUSY_TIMEOUT_MS);
		}
	}

	@Test
	void aFileInRollbackJournalModeIsSwitchedToWal() throws Exception {
		Path file = this.dir.resolve("app.db");
		String url = "jdbc:sqlite:" + file + "?transaction_mode=IMMEDIATE&journal_mode=DELETE";
		try (HikariDataSource dataSource = pool(url, false);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			assertThat(text(dataSource, "PRAGMA journal_mode")).isEqualTo("wal");
		}
	}

	@Test
	void deferredTransactionsAreRefusedNamingTheSetting() {
		String url = "jdbc:sqlite:" + this.dir.resolve("app.db");
		try (HikariDataSource dataSource = pool(url, false)) {
			assertThatIllegalStateException().isThrownBy(() -> new JdbcTransport(dataSource, TestDatabases.settings()))
				.withMessageContaining(url)
				.withMessageContaining("transaction_mode=DEFERRED")
				.withMessageContaining("transaction_mode=IMMEDIATE");
		}
	}

	@Test
	void aBusyTimeoutOfZeroIsRefusedNamingTheSetting() {
		String url = "jdbc:sqlite:" + this.dir.resolve("app.db") + "?transaction_mode=IMMEDIATE&busy_timeout=0";
		try (HikariDataSource dataSource = pool(url, false)) {
			assertThatIllegalStateException().isThrownBy(() -> new JdbcTransport(dataSource, TestDatabases.settings()))
				.withMessageContaining(this.dir.resolve("app.db").toString())
				.withMessageContaining("busy_timeout=0");
		}
	}

	@Test
	void synchronousOffIsRefusedNamingTheSetting() {
		String url = "jdbc:sqlite:" + this.dir.resolve("app.db") + "?transaction_mode=IMMEDIATE&synchronous=OFF";
		try (HikariDataSource dataSource = pool(url, false)) {
			assertThatIllegalStateException().isThrownBy(() -> new JdbcTransport(dataSource, TestDatabases.settings()))
				.withMessageContaining("synchronous=OFF");
		}
	}

	@Test
	void anInMemoryDatabaseIsRefused() {
		try (HikariDataSource dataSource = pool("jdbc:sqlite::memory:", true)) {
			assertThatIllegalStateException().isThrownBy(() -> new JdbcTransport(dataSource, TestDatabases.settings()))
				.withMessageContaining("in memory");
		}
	}

	@Test
	void aFileThatIsNotSqliteIsRefusedNamingTheFile() throws Exception {
		Path file = this.dir.resolve("not-a-database.db");
		Files.writeString(file, "this is a text file, not a database; ".repeat(200), StandardCharsets.UTF_8);
		try (HikariDataSource dataSource = pool("jdbc:sqlite:" + file, true)) {
			assertThatIllegalStateException().isThrownBy(() -> new JdbcTransport(dataSource, TestDatabases.settings()))
				.withMessageContaining(file.toString())
				.withMessageContaining("not a database");
		}
		assertThat(Files.readString(file)).startsWith("this is a text file");
	}

	@Test
	void aReadOnlyDatabaseIsRefusedNamingTheFileAndKeepsItsMessages() throws Exception {
		Path file = this.dir.resolve("app.db");
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = pool("jdbc:sqlite:" + file, true);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			assertThat(transport.producer().send("t", "kept").isStored()).isTrue();
		}
		// Root ignores file permissions, so the file is opened read-only the way SQLite does it for a
		// file it cannot write (SQLITE_OPEN_READONLY): the same SQLITE_READONLY on every write.
		try (HikariDataSource dataSource = pool("jdbc:sqlite:" + file, true)) {
			dataSource.addDataSourceProperty("open_mode", "1");
			assertThatIllegalStateException().isThrownBy(() -> new JdbcTransport(dataSource, settings))
				.withMessageContaining(file.toString())
				.withMessageContaining("read");
		}
		try (HikariDataSource dataSource = pool("jdbc:sqlite:" + file, true)) {
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "message"))
				.isEqualTo(1);
		}
	}

	/** A pool made as Spring Boot makes it: it opens its first connection on first use. */
	@Test
	void aFileLockedByAnotherProgramIsRefusedNamingTheFileAfterTheBusyTimeout() throws Exception {
		Path file = this.dir.resolve("app.db");
		try (HikariDataSource dataSource = pool("jdbc:sqlite:" + file, true);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			assertThat(transport.producer().send("t", "kept").isStored()).isTrue();
		}
		// Another program keeps the file locked: an exclusive locking mode holds the lock its last
		// write took until it closes the file.
		try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file + "?journal_mode=DELETE");
				Statement statement = other.createStatement()) {
			statement.execute("PRAGMA locking_mode=EXCLUSIVE");
			statement.execute("CREATE TABLE IF NOT EXISTS other_program (id INTEGER)");
			statement.execute("INSERT INTO other_program (id) VALUES (1)");
			try (HikariDataSource dataSource = pool("jdbc:sqlite:" + file, true)) {
				dataSource.addDataSourceProperty("busy_timeout", Integer.toString(SqliteSettings.MIN_BUSY_TIMEOUT_MS));
				assertThatIllegalStateException().isThrownBy(() -> new JdbcTransport(dataSource, TestDatabases.settings()))
					.withMessageContaining(file.toString())
					.withMessageContaining("locked");
			}
		}
	}

	private static HikariDataSource pool(String url, boolean withProperties) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(url);
		if (withProperties) {
			pool.setDataSourceProperties(SqliteSettings.connectionProperties());
		}
		pool.setMaximumPoolSize(2);
		pool.setConnectionTimeout(Duration.ofSeconds(5).toMillis());
		return pool;
	}

	private static String text(HikariDataSource dataSource, String sql) throws Exception {
		try (var connection = dataSource.getConnection(); var statement = connection.createStatement();
				var rs = statement.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

}

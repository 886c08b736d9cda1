package io.batchconsumer.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import io.batchconsumer.testsupport.SharedMariaDb;
import io.batchconsumer.testsupport.SharedPostgres;

/**
 * Real databases for the JDBC transport tests: an H2 or SQLite file database in a temporary directory, the
 * embedded PostgreSQL or the MariaDB server shared by every test of the JVM
 * ({@link SharedPostgres}, {@link SharedMariaDb}). Each test uses its own table prefix.
 *
 * <p>Threading: used by one test at a time.
 */
public final class TestDatabases implements AutoCloseable {

	/** The database of the shared MariaDB server these tests use, created on first use. */
	private static String mariaDbUrl;

	/** The kinds of database the tests run on. */
	public enum Kind {

		H2, POSTGRESQL, MARIADB, SQLITE

	}

	/** The shared PostgreSQL, started on first use. */
	EmbeddedPostgres postgres() {
		return SharedPostgres.server();
	}

	/** The URL of this JVM's MariaDB test database, created on first use. */
	static synchronized String mariaDb() {
		if (mariaDbUrl == null) {
			mariaDbUrl = SharedMariaDb.newDatabase();
		}
		return mariaDbUrl;
	}

	/**
	 * A pooled data source.
	 * @param kind the database
	 * @param dir a temporary directory for H2 and SQLite
	 * @param poolSize connections
	 * @return the data source; close it after the test
	 */
	public HikariDataSource dataSource(Kind kind, Path dir, int poolSize) {
		HikariConfig config = new HikariConfig();
		if (kind == Kind.H2) {
			// No WRITE_DELAY=0 in the URL on purpose: the transport must set it itself.
			config.setJdbcUrl("jdbc:h2:file:" + dir.resolve("queue").toAbsolutePath());
		}
		else if (kind == Kind.SQLITE) {
			config.setJdbcUrl(sqliteUrl(dir));
		}
		else if (kind == Kind.MARIADB) {
			config.setJdbcUrl(mariaDb());
		}
		else {
			config.setJdbcUrl(SharedPostgres.jdbcUrl());
		}
		config.setMaximumPoolSize(poolSize);
		config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
		config.setPoolName("test-" + kind);
		return new HikariDataSource(config);
	}

	/**
	 * The URL of a SQLite file with the settings of {@link SqliteSettings} as URL parameters, so that a
	 * child JVM given only the URL opens it the same way.
	 * @param dir the directory of the file, {@code null} for a new temporary one
	 * @return the URL
	 */
	static String sqliteUrl(Path dir) {
		try {
			Path base = (dir != null) ? dir : Files.createTempDirectory("bc-sqlite");
			StringBuilder url = new StringBuilder("jdbc:sqlite:").append(base.resolve("queue.db").toAbsolutePath());
			char separator = '?';
			for (var property : new TreeMap<>(SqliteSettings.connectionProperties()).entrySet()) {
				url.append(separator).append(property.getKey()).append('=').append(property.getValue());
				separator = '&';
			}
			return url.toString();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Settings with a fresh table prefix and short leases.
	 * @return the settings
	 */
	static JdbcSettings settings() {
		return JdbcSettings.defaults()
			.withTablePrefix("t" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_")
			.withInitializeSchema(SchemaInitialization.ALWAYS)
			.withLeaseDuration(Duration.ofSeconds(3));
	}

	/** A test's work on a data source and a transport on it. */
	@FunctionalInterface
	interface TransportCheck {

		void run(HikariDataSource dataSource, JdbcTransport transport) throws Exception;

	}

	/**
	 * Runs a check on a fresh pool and transport of one kind of database, closed after it.
	 * @param kind the database
	 * @param dir a temporary directory for H2 and SQLite
	 * @param poolSize connections
	 * @param settings the transport's settings
	 * @param check the test's work
	 * @throws Exception what the check throws
	 */
	static void withTransport(Kind kind, Path dir, int poolSize, JdbcSettings settings, TransportCheck check)
			throws Exception {
		try (TestDatabases databases = new TestDatabases();
				HikariDataSource dataSource = databases.dataSource(kind, dir, poolSize);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			check.run(dataSource, transport);
		}
	}

	static int count(DataSource dataSource, String sql) {
		try (var connection = dataSource.getConnection(); var statement = connection.createStatement();
				var rs = statement.executeQuery(sql)) {
			rs.next();
			return rs.getInt(1);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static void execute(DataSource dataSource, String sql) {
		try (var connection = dataSource.getConnection(); var statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Nothing to do: the shared servers stop when the JVM exits. */
	@Override
	public void close() throws IOException {
	}

}

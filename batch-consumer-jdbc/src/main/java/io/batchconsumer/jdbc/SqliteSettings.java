package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.internal.SqlStates;

/**
 * What the JDBC transport needs of a SQLite database, and the connection properties of the
 * {@code org.xerial:sqlite-jdbc} driver that give it:
 * <ul>
 * <li>{@code journal_mode=WAL}: readers do not block the writer, and several processes on one host
 * share the file. It is stored in the file, so the transport sets it itself when it is missing.</li>
 * <li>{@code synchronous=NORMAL}: in WAL mode a commit survives a killed process under any setting
 * but {@code OFF}, and a power loss too under {@code FULL}; {@code NORMAL} does not sync every
 * commit. {@code OFF} is refused (a power loss can corrupt the file).</li>
 * <li>{@code busy_timeout}: how long a write waits for the file's write lock before it fails with
 * {@code SQLITE_BUSY}, a transient failure; below {@value #MIN_BUSY_TIMEOUT_MS} ms is refused.</li>
 * <li>{@code transaction_mode=IMMEDIATE}: a transaction takes the write lock when it begins. A
 * deferred one that reads first and writes later fails at once with {@code SQLITE_BUSY} (no wait)
 * when another connection wrote in between, so deferred transactions are refused.</li>
 * </ul>
 * The settings other than the journal mode hold per connection: the pool's driver must be given
 * them ({@link #connectionProperties()}, or the same keys as URL parameters:
 * {@code jdbc:sqlite:./data/app.db?journal_mode=WAL&synchronous=NORMAL&busy_timeout=10000&transaction_mode=IMMEDIATE}).
 * An in-memory database is refused: each connection of a pool would open a database of its own.
 *
 * <p>Threading: stateless; thread-safe.
 */
public final class SqliteSettings {

	private static final Logger logger = LoggerFactory.getLogger(SqliteSettings.class);

	/** The smallest busy timeout accepted: below it ordinary write bursts fail. */
	static final int MIN_BUSY_TIMEOUT_MS = 1000;

	/** The busy timeout of {@link #connectionProperties()}: well below a lease (30 s by default). */
	static final int BUSY_TIMEOUT_MS = 10_000;

	private static final Map<String, String> PROPERTIES = Map.of("journal_mode", "WAL", "synchronous", "NORMAL",
			"busy_timeout", Integer.toString(BUSY_TIMEOUT_MS), "transaction_mode", "IMMEDIATE");

	private SqliteSettings() {
	}

	/**
	 * The driver properties that give a SQLite connection what the transport needs; a pool passes
	 * them to the driver (HikariCP: {@code addDataSourceProperty}, Boot:
	 * {@code spring.datasource.hikari.data-source-properties.*}).
	 * @return a new copy of the properties
	 */
	public static Properties connectionProperties() {
		Properties properties = new Properties();
		properties.putAll(PROPERTIES);
		return properties;
	}

	/**
	 * Checks a connection of the transport's pool, and switches the file to WAL when it is not.
	 * @param connection a connection in auto-commit mode
	 * @param url the JDBC URL, to name the database in a refusal
	 * @throws IllegalStateException naming the setting when one cannot be applied or is refused
	 */
	static void check(Connection connection, String url) {
		try (Statement statement = connection.createStatement()) {
			if (isInMemory(url)) {
				throw refuse(url, "is in memory, where each connection of a pool opens a database of its own; "
						+ "use a file, e.g. jdbc:sqlite:./data/app.db");
			}
			requireWal(statement, url);
			requireWritable(statement, url);
			long synchronous = pragma(statement, "synchronous");
			if (synchronous == 0) {
				throw refuse(url, "has synchronous=OFF, with which a power loss can corrupt the file; "
						+ "set the connection property synchronous=NORMAL");
			}
			long busyTimeout = pragma(statement, "busy_timeout");
			if (busyTimeout < MIN_BUSY_TIMEOUT_MS) {
				throw refuse(url, "has busy_timeout=" + busyTimeout + " ms, with which a write fails as soon as "
						+ "another one holds the lock; set the connection property busy_timeout=" + BUSY_TIMEOUT_MS);
			}
			String mode = transactionMode(connection);
			if (mode == null) {
				logger.warn("Cannot tell the transaction mode of the SQLite database {}; "
						+ "make sure its connections have transaction_mode=IMMEDIATE", url);
			}
			else if (!mode.equals("IMMEDIATE") && !mode.equals("EXCLUSIVE")) {
				throw refuse(url, "has transaction_mode=" + mode + ", with which a transaction that reads before "
						+ "it writes fails at once when another one wrote; set the connection property "
						+ "transaction_mode=IMMEDIATE");
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("The SQLite database " + url + " cannot be used: " + ex.getMessage(), ex);
		}
	}

	private static void requireWal(Statement statement, String url) throws SQLException {
		if (text(statement, "PRAGMA journal_mode").equals("wal")) {
			return;
		}
		String mode = text(statement, "PRAGMA journal_mode=WAL");
		if (!mode.equals("wal")) {
			throw refuse(url, "cannot be switched to journal_mode=WAL (it stays " + mode
					+ "); WAL needs a local file system that the process can write");
		}
		logger.info("Switched the SQLite database {} to journal_mode=WAL", url);
	}

	/**
	 * Takes the write lock and gives it back at once, so that a file the process cannot write (a
	 * read-only file, directory or file system) is refused at start-up and not at the first send. A
	 * lock held by another connection for the whole busy timeout is no reason to refuse.
	 */
	private static void requireWritable(Statement statement, String url) {
		try {
			statement.execute("BEGIN IMMEDIATE");
		}
		catch (SQLException ex) {
			if (!SqlStates.isSqliteBusy(ex)) {
				throw refuse(url, "cannot be written (" + ex.getMessage() + "): the file, its directory or its file "
						+ "system is read-only for this process");
			}
			return;
		}
		try {
			statement.execute("ROLLBACK");
		}
		catch (SQLException ex) {
			logger.debug("No write probe to roll back on {}: {}", url, ex.getMessage());
		}
	}

	/** The driver's transaction mode, {@code null} when the connection is not sqlite-jdbc's. */
	private static String transactionMode(Connection connection) {
		try {
			if (connection.isWrapperFor(org.sqlite.SQLiteConnection.class)) {
				return connection.unwrap(org.sqlite.SQLiteConnection.class)
					.getConnectionConfig()
					.getTransactionMode()
					.name();
			}
		}
		catch (SQLException | LinkageError ex) {
			logger.debug("Cannot unwrap the SQLite connection", ex);
		}
		return null;
	}

	private static long pragma(Statement statement, String name) throws SQLException {
		try (ResultSet rs = statement.executeQuery("PRAGMA " + name)) {
			return rs.next() ? rs.getLong(1) : -1;
		}
	}

	private static String text(Statement statement, String sql) throws SQLException {
		try (ResultSet rs = statement.executeQuery(sql)) {
			String value = rs.next() ? rs.getString(1) : null;
			return (value != null) ? value.toLowerCase(Locale.ROOT) : "";
		}
	}

	/** Whether a {@code jdbc:sqlite:} URL names no file: {@code :memory:}, nothing, or {@code mode=memory}. */
	static boolean isInMemory(String url) {
		String rest = (url != null && url.regionMatches(true, 0, "jdbc:sqlite:", 0, 12)) ? url.substring(12) : "";
		int parameters = rest.indexOf('?');
		String file = (parameters >= 0) ? rest.substring(0, parameters) : rest;
		return file.isEmpty() || file.contains(":memory:") || rest.contains("mode=memory");
	}

	private static IllegalStateException refuse(String url, String why) {
		return new IllegalStateException("The SQLite database " + url + " " + why);
	}

}

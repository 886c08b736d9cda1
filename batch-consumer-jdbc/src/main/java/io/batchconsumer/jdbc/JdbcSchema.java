package io.batchconsumer.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks at the database once (dialect, embedded or not, H2 file or not), creates the tables from
 * the dialect's {@code schema-<dialect>.sql} when {@link SchemaInitialization} says so, and makes
 * an H2 file database write each commit before acknowledging it.
 *
 * <p>Threading: immutable after construction; thread-safe.
 */
final class JdbcSchema {

	private static final Logger logger = LoggerFactory.getLogger(JdbcSchema.class);

	private final DataSource dataSource;

	private final JdbcTables tables;

	private final JdbcDialect dialect;

	private final boolean embedded;

	private final boolean h2File;

	private final String productName;

	private final String url;

	JdbcSchema(DataSource dataSource, JdbcTables tables) {
		this.dataSource = dataSource;
		this.tables = tables;
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			this.productName = metaData.getDatabaseProductName();
			String url = metaData.getURL();
			this.url = url;
			this.dialect = JdbcDialect.of(this.productName);
			this.embedded = JdbcDialect.isEmbedded(this.productName, url);
			this.h2File = this.dialect == JdbcDialect.H2 && url != null
					&& !url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:");
		}
		catch (SQLException | RuntimeException ex) {
			throw new IllegalStateException("Cannot reach the database of the JDBC transport"
					+ DataSourceUrl.describe(dataSource) + ": " + DataSourceUrl.causes(ex), ex);
		}
	}

	JdbcDialect dialect() {
		return this.dialect;
	}

	/**
	 * Creates the tables when the mode says so for this database.
	 * @param mode the configured mode
	 * @return whether the tables were created (or found)
	 */
	boolean initialize(SchemaInitialization mode) {
		boolean create = mode == SchemaInitialization.ALWAYS || (mode == SchemaInitialization.EMBEDDED && this.embedded);
		if (!create) {
			return false;
		}
		if (this.dialect.schemaResource() == null) {
			throw new IllegalStateException("jdbc.initialize-schema cannot create tables on " + this.productName
					+ " (supported: SQLite, H2, PostgreSQL, MySQL, MariaDB); create them yourself and set it to never");
		}
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			for (String sql : statements()) {
				statement.execute(sql);
			}
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create the tables of the JDBC transport: " + ex.getMessage(), ex);
		}
		addMissingColumns();
		logger.debug("JDBC transport tables with prefix '{}' are ready on {}", this.tables.prefix(), this.productName);
		return true;
	}

	/**
	 * Brings tables created by an older version up to date: {@code replayed_at} of the dead-letter
	 * table (added with dead-letter replay) and {@code tag} of the message table (added with tag
	 * subscriptions; existing messages have no tag). Each probe runs on its own connection, so a
	 * failed probe does not spoil a transaction (PostgreSQL).
	 */
	private void addMissingColumns() {
		addMissingColumn(this.tables.deadLetter(), "replayed_at", "BIGINT");
		addMissingColumn(this.tables.message(), "tag", "VARCHAR(128)");
	}

	private void addMissingColumn(String table, String column, String type) {
		if (hasColumn(table, column)) {
			return;
		}
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("ALTER TABLE " + table + " ADD COLUMN " + column + " " + type);
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
			logger.info("Added the column {} to {}", column, table);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot add the column " + column + " to " + table + ": " + ex.getMessage(), ex);
		}
	}

	private boolean hasColumn(String table, String column) {
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			try {
				statement.executeQuery("SELECT " + column + " FROM " + table + " WHERE 1 = 0").close();
				return true;
			}
			catch (SQLException ex) {
				if (!connection.getAutoCommit()) {
					connection.rollback();
				}
				return false;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot reach the database of the JDBC transport: " + ex.getMessage(), ex);
		}
	}

	/**
	 * The DDL statements of this dialect with the table prefix filled in.
	 * @return the statements, in order
	 */
	List<String> statements() {
		String script;
		try (InputStream in = JdbcSchema.class.getResourceAsStream(this.dialect.schemaResource())) {
			if (in == null) {
				throw new IllegalStateException("Missing schema resource " + this.dialect.schemaResource());
			}
			script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		StringBuilder body = new StringBuilder();
		for (String line : script.split("\n")) {
			if (!line.trim().startsWith("--")) {
				body.append(line).append('\n');
			}
		}
		List<String> statements = new ArrayList<>();
		for (String statement : body.toString().replace("${prefix}", this.tables.prefix()).split(";")) {
			if (!statement.isBlank()) {
				statements.add(statement.trim());
			}
		}
		return statements;
	}

	/**
	 * An H2 file database acknowledges a commit up to {@code WRITE_DELAY} (500 ms) before it is
	 * written, so a killed process loses acknowledged sends and commits. This sets the delay to 0
	 * (the setting is stored in the database) and checks that it took.
	 * A SQLite database gets the settings of {@link SqliteSettings} checked instead.
	 * @throws IllegalStateException when the delay cannot be set to 0, or a SQLite setting is refused
	 */
	void makeCommitsDurable() {
		if (this.dialect == JdbcDialect.SQLITE) {
			try (Connection connection = this.dataSource.getConnection()) {
				SqliteSettings.check(connection, this.url);
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Cannot reach the SQLite database " + this.url + ": " + ex.getMessage(), ex);
			}
			return;
		}
		if (!this.h2File) {
			return;
		}
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("SET WRITE_DELAY 0");
			try (ResultSet rs = statement.executeQuery(
					"SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
				String value = rs.next() ? rs.getString(1) : null;
				if (!"0".equals(value)) {
					throw new SQLException("WRITE_DELAY is " + value + " after SET WRITE_DELAY 0");
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("The H2 file database acknowledges commits before writing them and "
					+ "WRITE_DELAY cannot be set to 0 (" + ex.getMessage() + "); add ;WRITE_DELAY=0 to its URL", ex);
		}
	}

}

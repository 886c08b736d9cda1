package io.batchconsumer.benchmarks.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import io.batchconsumer.jdbc.SqliteConnections;
import io.batchconsumer.jdbc.SqliteSettings;

/**
 * The databases of a JDBC scenario: an H2 file in a temporary directory and an embedded
 * PostgreSQL (about 2 s to start), on request a SQLite file beside the H2 one, a pool on each, a
 * counter for fresh table prefixes, and everything removed on close.
 *
 * <p>With {@code -Dbench.pg.statements=DIR} PostgreSQL loads {@code pg_stat_statements}, and
 * {@link #reportStatements(String)} writes the statements of each run, most time first, to
 * {@code DIR/<run>.txt}: how often each ran, its time in the server and its rows.
 *
 * <p>Threading: created and closed by the runner's thread; the pools are thread-safe;
 * {@link #nextTable()} is called by the runner's thread only.
 */
final class BenchDatabases implements AutoCloseable {

	private final EmbeddedPostgres postgres;

	private final Path h2Dir;

	private final HikariDataSource h2;

	private final HikariDataSource pg;

	/** {@code null} unless asked for. */
	private final HikariDataSource sqlite;

	/** Where statement reports go; {@code null} unless {@code bench.pg.statements} is set. */
	private final Path statements;

	private int tables;

	/**
	 * Starts PostgreSQL and opens both pools.
	 * @param name the scenario's name, in the pool names and the H2 directory
	 * @param poolSize connections per pool
	 * @throws IOException when PostgreSQL or the H2 directory cannot be set up
	 */
	BenchDatabases(String name, int poolSize) throws IOException {
		this(name, poolSize, false);
	}

	/**
	 * Starts PostgreSQL and opens the pools.
	 * @param name the scenario's name, in the pool names and the H2 directory
	 * @param poolSize connections per pool
	 * @param sqlite whether a SQLite file joins H2 and PostgreSQL
	 * @throws IOException when PostgreSQL or the H2 directory cannot be set up
	 */
	BenchDatabases(String name, int poolSize, boolean sqlite) throws IOException {
		String statementsDir = System.getProperty("bench.pg.statements");
		this.statements = (statementsDir != null) ? Files.createDirectories(Path.of(statementsDir)) : null;
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
		if (this.statements != null) {
			builder.setServerConfig("shared_preload_libraries", "pg_stat_statements");
		}
		this.postgres = builder.start();
		this.h2Dir = Files.createTempDirectory("bench-" + name + "-h2");
		this.h2 = pool("jdbc:h2:file:" + this.h2Dir.resolve("bench").toAbsolutePath(), name + "-h2", poolSize);
		this.pg = pool(this.postgres.getJdbcUrl("postgres", "postgres"), name + "-pg", poolSize);
		this.sqlite = sqlite ? sqlite(this.h2Dir.resolve("bench.db"), name + "-sqlite", poolSize) : null;
		if (this.statements != null) {
			try (Connection connection = this.pg.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
			}
			catch (SQLException ex) {
				throw new IOException("pg_stat_statements cannot be set up", ex);
			}
		}
	}

	/**
	 * With {@code bench.pg.statements}, writes PostgreSQL's statements since the last report to
	 * {@code <run>.txt} (calls, milliseconds in the server, rows, text; most time first) and starts
	 * counting again; otherwise does nothing.
	 * @param run the run's name, the file's
	 * @throws IOException when the report cannot be written
	 */
	void reportStatements(String run) throws IOException {
		if (this.statements == null) {
			return;
		}
		StringBuilder report = new StringBuilder(String.format(Locale.ROOT, "%10s %12s %10s  %s%n", "calls", "ms",
				"rows", "statement"));
		try (Connection connection = this.pg.getConnection(); Statement statement = connection.createStatement()) {
			try (ResultSet rs = statement.executeQuery("SELECT calls, total_exec_time, rows, query FROM "
					+ "pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25")) {
				while (rs.next()) {
					report.append(String.format(Locale.ROOT, "%,10d %,12.1f %,10d  %s%n", rs.getLong(1), rs.getDouble(2),
							rs.getLong(3), rs.getString(4).replaceAll("\\s+", " ")));
				}
			}
			statement.execute("SELECT pg_stat_statements_reset()");
		}
		catch (SQLException ex) {
			throw new IOException("pg_stat_statements cannot be read", ex);
		}
		Files.writeString(this.statements.resolve(run.replaceAll("[^A-Za-z0-9.-]+", "-") + ".txt"), report);
	}

	/**
	 * A pool on a SQLite file with the settings the transport needs
	 * ({@link SqliteSettings#connectionProperties()}, through {@link SqliteConnections}), as the
	 * starter gives a Boot pool on a {@code jdbc:sqlite:} URL.
	 * @param file the database file
	 * @param name the pool's name
	 * @param size connections in the pool
	 * @return the pool
	 */
	static HikariDataSource sqlite(Path file, String name, int size) {
		HikariConfig config = new HikariConfig();
		config.setDataSource(new SqliteConnections("jdbc:sqlite:" + file.toAbsolutePath(),
				SqliteSettings.connectionProperties()));
		config.setMaximumPoolSize(size);
		config.setPoolName("bench-" + name);
		return new HikariDataSource(config);
	}

	private static HikariDataSource pool(String url, String name, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(size);
		config.setPoolName("bench-" + name);
		return new HikariDataSource(config);
	}

	HikariDataSource h2() {
		return this.h2;
	}

	HikariDataSource pg() {
		return this.pg;
	}

	/**
	 * The databases by their name in the reports, H2 first, SQLite last when there is one.
	 * @return {@code H2}, {@code PostgreSQL} and perhaps {@code SQLite}
	 */
	Map<String, HikariDataSource> byName() {
		Map<String, HikariDataSource> all = new LinkedHashMap<>();
		all.put("H2", this.h2);
		all.put("PostgreSQL", this.pg);
		if (this.sqlite != null) {
			all.put("SQLite", this.sqlite);
		}
		return all;
	}

	/**
	 * The name of one of the databases in the reports.
	 * @param dataSource {@link #h2()}, {@link #pg()} or the SQLite pool
	 * @return {@code H2}, {@code PostgreSQL} or {@code SQLite}
	 */
	String name(DataSource dataSource) {
		if (dataSource == this.sqlite) {
			return "SQLite";
		}
		return (dataSource == this.pg) ? "PostgreSQL" : "H2";
	}

	/**
	 * A number not used before for a set of tables.
	 * @return 1, 2, ...
	 */
	int nextTable() {
		return ++this.tables;
	}

	@Override
	public void close() throws IOException {
		this.h2.close();
		this.pg.close();
		if (this.sqlite != null) {
			this.sqlite.close();
		}
		this.postgres.close();
		try (var files = Files.walk(this.h2Dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
	}

}

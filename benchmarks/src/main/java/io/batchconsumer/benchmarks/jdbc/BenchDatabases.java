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

/**
 * The two databases of a JDBC scenario: an H2 file in a temporary directory and an embedded
 * PostgreSQL (about 2 s to start), a pool on each, a counter for fresh table prefixes, and
 * everything removed on close.
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
	 * Both databases by their name in the reports, H2 first.
	 * @return {@code H2} and {@code PostgreSQL}
	 */
	Map<String, HikariDataSource> byName() {
		Map<String, HikariDataSource> all = new LinkedHashMap<>();
		all.put("H2", this.h2);
		all.put("PostgreSQL", this.pg);
		return all;
	}

	/**
	 * The name of one of the two databases in the reports.
	 * @param dataSource {@link #h2()} or {@link #pg()}
	 * @return {@code H2} or {@code PostgreSQL}
	 */
	String name(DataSource dataSource) {
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
		this.postgres.close();
		try (var files = Files.walk(this.h2Dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
	}

}

package io.batchconsumer.benchmarks.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
 * <p>Threading: created and closed by the runner's thread; the pools are thread-safe;
 * {@link #nextTable()} is called by the runner's thread only.
 */
final class BenchDatabases implements AutoCloseable {

	private final EmbeddedPostgres postgres;

	private final Path h2Dir;

	private final HikariDataSource h2;

	private final HikariDataSource pg;

	private int tables;

	/**
	 * Starts PostgreSQL and opens both pools.
	 * @param name the scenario's name, in the pool names and the H2 directory
	 * @param poolSize connections per pool
	 * @throws IOException when PostgreSQL or the H2 directory cannot be set up
	 */
	BenchDatabases(String name, int poolSize) throws IOException {
		this.postgres = EmbeddedPostgres.builder().start();
		this.h2Dir = Files.createTempDirectory("bench-" + name + "-h2");
		this.h2 = pool("jdbc:h2:file:" + this.h2Dir.resolve("bench").toAbsolutePath(), name + "-h2", poolSize);
		this.pg = pool(this.postgres.getJdbcUrl("postgres", "postgres"), name + "-pg", poolSize);
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

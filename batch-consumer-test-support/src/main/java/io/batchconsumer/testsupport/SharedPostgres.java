package io.batchconsumer.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * One embedded PostgreSQL per JVM, started on first use and stopped when the JVM exits, instead of
 * one per test class: every test class of a module shares it and takes either the {@code postgres}
 * database (with a table prefix of its own) or a {@link #newDatabase() fresh database}.
 *
 * <p>Threading: thread-safe.
 */
public final class SharedPostgres {

	private static final AtomicInteger databases = new AtomicInteger();

	private static EmbeddedPostgres server;

	private SharedPostgres() {
	}

	/**
	 * The server, started on the first call.
	 * @return the running server
	 */
	public static synchronized EmbeddedPostgres server() {
		if (server == null) {
			try {
				server = EmbeddedPostgres.builder().start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			EmbeddedPostgres started = server;
			Runtime.getRuntime().addShutdownHook(new Thread(() -> close(started), "shared-postgres-stop"));
		}
		return server;
	}

	/**
	 * The URL of the {@code postgres} database, user {@code postgres}.
	 * @return the JDBC URL
	 */
	public static String jdbcUrl() {
		return server().getJdbcUrl("postgres", "postgres");
	}

	/**
	 * Creates an empty database.
	 * @return its JDBC URL, user {@code postgres}
	 */
	public static String newDatabase() {
		String name = "test_" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
		try (Connection connection = server().getPostgresDatabase().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create database " + name, ex);
		}
		return server().getJdbcUrl("postgres", name);
	}

	private static void close(EmbeddedPostgres postgres) {
		try {
			postgres.close();
		}
		catch (IOException ex) {
			// The JVM is exiting; the temporary directory goes with the server process.
		}
	}

}

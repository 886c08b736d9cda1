package io.batchconsumer.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.util.FileSystemUtils;

/**
 * An embedded PostgreSQL server that can be stopped and started again on the same port and data
 * directory, so that a client sees an outage and then the same database back.
 *
 * <p>Threading: used by one test thread.
 */
final class RestartablePostgres implements AutoCloseable {

	private final int port;

	private final Path directory;

	private EmbeddedPostgres server;

	private RestartablePostgres(int port, Path directory) {
		this.port = port;
		this.directory = directory;
	}

	/**
	 * Starts a server on a free port with its data in a new temporary directory.
	 * @return the running server
	 */
	static RestartablePostgres startOnFreePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			RestartablePostgres postgres = new RestartablePostgres(socket.getLocalPort(),
					Files.createTempDirectory("batch-consumer-pg"));
			socket.close();
			postgres.start();
			return postgres;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The JDBC URL, the same before and after a restart.
	 * @return the URL of database {@code postgres}, user {@code postgres}
	 */
	String jdbcUrl() {
		return "jdbc:postgresql://localhost:" + this.port + "/postgres?user=postgres";
	}

	/** Starts the server on its port and data directory; the data of an earlier start is kept. */
	void start() {
		try {
			this.server = EmbeddedPostgres.builder()
				.setPort(this.port)
				.setDataDirectory(this.directory)
				.setCleanDataDirectory(false)
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Stops the server ({@code pg_ctl stop -m fast}: open connections are cut). */
	void stop() {
		try {
			this.server.close();
			this.server = null;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Stops the server and deletes its data. */
	@Override
	public void close() {
		if (this.server != null) {
			stop();
		}
		FileSystemUtils.deleteRecursively(this.directory.toFile());
	}

}

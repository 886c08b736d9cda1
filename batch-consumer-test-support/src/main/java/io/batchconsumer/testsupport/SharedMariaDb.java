package io.batchconsumer.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * One MariaDB server per JVM, from the machine's {@code mariadb-server} package (Debian: {@code apt-get
 * install mariadb-server}; {@code .ci/run} installs it when missing): {@code mariadb-install-db}
 * into a temporary data directory, then {@code mariadbd} on a free port of {@code 127.0.0.1},
 * without grant tables (user {@code root}, no password), stopped and deleted when the JVM exits.
 * Each {@link #newDatabase()} is an empty database of it.
 *
 * <p>Threading: thread-safe.
 */
public final class SharedMariaDb {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	private static final AtomicInteger databases = new AtomicInteger();

	private static String baseUrl;

	private SharedMariaDb() {
	}

	/**
	 * Whether the server binaries are installed.
	 * @return whether {@code mariadbd} and {@code mariadb-install-db} are found
	 */
	public static boolean isInstalled() {
		return binary("mariadbd", "mysqld") != null && binary("mariadb-install-db", "mysql_install_db") != null;
	}

	/**
	 * Creates an empty database, starting the server on the first call.
	 * @return its JDBC URL, user {@code root} without password
	 * @throws IllegalStateException when the server is not installed or does not start
	 */
	public static String newDatabase() {
		String name = "test_" + databases.incrementAndGet();
		String base = start();
		try (Connection connection = DriverManager.getConnection(base + "mysql?user=root");
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create MariaDB database " + name, ex);
		}
		return base + name + "?user=root";
	}

	private static synchronized String start() {
		if (baseUrl != null) {
			return baseUrl;
		}
		String server = binary("mariadbd", "mysqld");
		String install = binary("mariadb-install-db", "mysql_install_db");
		if (server == null || install == null) {
			throw new IllegalStateException("MariaDB is not installed: apt-get install -y mariadb-server");
		}
		try {
			Path dir = Files.createTempDirectory("shared-mariadb");
			Path data = dir.resolve("data");
			run(dir.resolve("install.log"), install, "--no-defaults", "--datadir=" + data,
					"--auth-root-authentication-method=normal", "--skip-test-db", "--user=" + user());
			int port = freePort();
			Process process = new ProcessBuilder(server, "--no-defaults", "--datadir=" + data, "--port=" + port,
					"--bind-address=127.0.0.1", "--socket=" + dir.resolve("mariadb.sock"), "--user=" + user(),
					"--skip-grant-tables", "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=32M",
					"--innodb-flush-log-at-trx-commit=2", "--max-connections=500", "--pid-file=" + dir.resolve("pid"))
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("server.log").toFile())
				.start();
			Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process, dir), "shared-mariadb-stop"));
			baseUrl = "jdbc:mariadb://127.0.0.1:" + port + "/";
			awaitReady(process, dir);
			return baseUrl;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void awaitReady(Process process, Path dir) throws IOException {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (true) {
			try (Connection connection = DriverManager.getConnection(baseUrl + "mysql?user=root&connectTimeout=1000")) {
				return;
			}
			catch (SQLException ex) {
				if (!process.isAlive() || System.nanoTime() > deadline) {
					throw new IllegalStateException("MariaDB did not start: "
							+ String.join("\n", tail(Files.readAllLines(dir.resolve("server.log")))), ex);
				}
				try {
					TimeUnit.MILLISECONDS.sleep(100); // polling a starting server; no event to wait on
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while MariaDB started", interrupted);
				}
			}
		}
	}

	private static List<String> tail(List<String> lines) {
		return lines.subList(Math.max(0, lines.size() - 20), lines.size());
	}

	private static void run(Path log, String... command) throws IOException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
				throw new IllegalStateException(
						command[0] + " failed: " + String.join("\n", tail(Files.readAllLines(log))));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command[0], ex);
		}
	}

	private static void stop(Process process, Path dir) {
		process.destroy();
		try {
			if (!process.waitFor(20, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
			try (Stream<Path> files = Files.walk(dir)) {
				files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
			}
		}
		catch (InterruptedException | IOException ex) {
			// The JVM is exiting; what is left is in the temporary directory.
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static String user() {
		return System.getProperty("user.name");
	}

	private static String binary(String... names) {
		for (String name : names) {
			for (String dir : List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin")) {
				if (Files.isExecutable(Path.of(dir, name))) {
					return dir + "/" + name;
				}
			}
		}
		return null;
	}

}

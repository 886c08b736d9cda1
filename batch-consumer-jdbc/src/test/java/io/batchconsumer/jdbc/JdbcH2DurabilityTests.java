package io.batchconsumer.jdbc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An H2 file database acknowledges commits up to 500 ms before writing them unless
 * {@code WRITE_DELAY} is 0. The transport sets it itself, so a process killed with SIGKILL
 * loses no acknowledged send even when the URL does not say so.
 */
@Tag("integration")
class JdbcH2DurabilityTests {

	private static final int ACKS_BEFORE_KILL = 1500;

	@TempDir
	Path dir;

	@Test
	void aKilledProcessLosesNoAcknowledgedSend() throws Exception {
		Path database = this.dir.resolve("kill").toAbsolutePath();
		Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), H2KillTarget.class.getName(), database.toString())
			.redirectErrorStream(true)
			.start();
		int acknowledged = 0;
		try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while (acknowledged < ACKS_BEFORE_KILL && (line = out.readLine()) != null) {
				if (line.startsWith("ACK ")) {
					acknowledged = Integer.parseInt(line.substring(4));
				}
			}
			child.destroyForcibly(); // SIGKILL: no shutdown hook, no close
			assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(acknowledged).as("the child acknowledged sends").isEqualTo(ACKS_BEFORE_KILL);
		try (HikariDataSource dataSource = new HikariDataSource()) {
			dataSource.setJdbcUrl("jdbc:h2:file:" + database);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM kill_message"))
				.isGreaterThanOrEqualTo(acknowledged);
		}
	}

}

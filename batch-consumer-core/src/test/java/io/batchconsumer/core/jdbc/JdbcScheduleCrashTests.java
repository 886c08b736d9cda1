package io.batchconsumer.core.jdbc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SIGKILL of a JVM that schedules delayed messages and moves due ones into the queues, with
 * messages waiting in the schedule table: after the kill, another transport moves what waits,
 * every acknowledged message is in its queue exactly once, and none is there twice.
 */
class JdbcScheduleCrashTests {

	/** Scheduled messages acknowledged before the kill. */
	private static final int SCHEDULED_BEFORE_KILL = 3000;

	@TempDir
	Path dir;

	static JdbcSettings settings() {
		return JdbcSettings.defaults().withTablePrefix("sched_").withQueuesPerTopic(2)
			.withInitializeSchema(SchemaInitialization.ALWAYS);
	}

	@Test
	void aSigkillWithMessagesWaitingInTheScheduleLosesAndDuplicatesNone() throws Exception {
		Path database = this.dir.resolve("schedule");
		Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"), ScheduleKillTarget.class.getName(), database.toString())
			.redirectErrorStream(true)
			.start();
		int acknowledged = 0;
		try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while (acknowledged < SCHEDULED_BEFORE_KILL && (line = out.readLine()) != null) {
				if (line.startsWith("SCHEDULED ")) {
					acknowledged = Integer.parseInt(line.substring("SCHEDULED ".length()));
				}
			}
		}
		finally {
			child.destroyForcibly(); // SIGKILL: no shutdown hook, no close
			assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(acknowledged).isGreaterThanOrEqualTo(SCHEDULED_BEFORE_KILL);
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:file:" + database + ";WRITE_DELAY=0");
		config.setMaximumPoolSize(4);
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			int waitingAtKill = TestDatabases.count(dataSource, "SELECT COUNT(*) FROM sched_schedule");
			int movedAtKill = TestDatabases.count(dataSource, "SELECT COUNT(*) FROM sched_message");
			try (JdbcTransport transport = new JdbcTransport(dataSource, settings())) {
				await().atMost(Duration.ofSeconds(30)).until(() -> transport.scheduledMessages() == 0);
			}
			int moved = TestDatabases.count(dataSource, "SELECT COUNT(*) FROM sched_message WHERE topic = 'later'");
			int distinct = TestDatabases.count(dataSource,
					"SELECT COUNT(DISTINCT payload) FROM sched_message WHERE topic = 'later'");
			System.out.printf("schedule SIGKILL: %d acknowledged, %d waiting and %d moved at the kill, %d in the "
					+ "queues after the restart, %d distinct%n", acknowledged, waitingAtKill, movedAtKill, moved, distinct);
			assertThat(waitingAtKill).as("messages waiting in the schedule at the kill").isPositive();
			assertThat(moved).as("no message moved twice").isEqualTo(distinct);
			assertThat(moved).as("every acknowledged message reached its queue").isGreaterThanOrEqualTo(acknowledged);
			for (int batch = 0; batch < acknowledged / 50; batch += 7) {
				assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM sched_message WHERE payload = "
						+ "CAST('" + batch + "-49' AS VARBINARY)")).as("message %d-49", batch).isEqualTo(1);
			}
		}
	}

}

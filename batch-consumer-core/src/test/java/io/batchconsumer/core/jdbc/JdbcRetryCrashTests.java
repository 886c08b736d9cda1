package io.batchconsumer.core.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.testsupport.ChildProcess;
import io.batchconsumer.core.testing.FirstDeliveryFails;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SIGKILL of a JVM whose listener failed messages that now wait as retries in the schedule table
 * (3 s back-off): after a restart every message is processed successfully at least once, none is
 * lost and none is dead-lettered.
 */
class JdbcRetryCrashTests {

	@TempDir
	Path dir;

	@Test
	void aSigkillWithRetriesWaitingInTheScheduleLosesNone() throws Exception {
		Path database = this.dir.resolve("retries");
		Set<String> succeeded = ConcurrentHashMap.newKeySet();
		AtomicInteger failedBeforeKill = new AtomicInteger();
		try (ChildProcess child = ChildProcess.start(RetryKillTarget.class, (line) -> {
			if (line.startsWith("FAILED ")) {
				failedBeforeKill.incrementAndGet();
			}
			else if (line.startsWith("OK ")) {
				succeeded.add(line.substring(3));
			}
			else {
				System.out.println("child: " + line);
			}
		}, database.toString())) {
			// Killed when half the messages failed once: those wait as retries, the rest is in the queues.
			await().atMost(Duration.ofSeconds(20)).until(() -> failedBeforeKill.get() >= RetryKillTarget.MESSAGES / 2);
			child.kill();
		}
		int processedBeforeKill = succeeded.size();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:file:" + database + ";WRITE_DELAY=0");
		config.setMaximumPoolSize(8);
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			int waitingAtKill = TestDatabases.count(dataSource, "SELECT COUNT(*) FROM rcrash_schedule");
			assertThat(waitingAtKill).as("retries waiting in the schedule at the kill").isPositive();
			AtomicInteger retriedAfterRestart = new AtomicInteger();
			try (JdbcTransport transport = new JdbcTransport(dataSource, RetryKillTarget.settings())) {
				BatchContainer container = RetryKillTarget.container(transport,
						FirstDeliveryFails.listener((payload) -> { }, (payload) -> {
							retriedAfterRestart.incrementAndGet();
							succeeded.add(payload);
						}));
				container.start();
				try {
					await().atMost(Duration.ofSeconds(25)).until(() -> succeeded.size() == RetryKillTarget.MESSAGES);
					assertThat(container.stats().messagesDeadLettered()).isZero();
				}
				finally {
					assertThat(container.stop()).isTrue();
				}
			}
			System.out.printf("retry SIGKILL (JDBC): %d failed once and %d processed before the kill, %d retries "
					+ "waiting in the schedule at the kill, %d processed after the restart, %d of %d distinct%n",
					failedBeforeKill.get(), processedBeforeKill, waitingAtKill, retriedAfterRestart.get(),
					succeeded.size(), RetryKillTarget.MESSAGES);
			assertThat(succeeded).as("every message processed").hasSize(RetryKillTarget.MESSAGES);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM rcrash_dead_letter")).isZero();
		}
	}

}

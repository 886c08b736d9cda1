package io.batchconsumer.jdbc;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.testing.FirstDeliveryFails;
import io.batchconsumer.testsupport.ChildProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SIGKILL of a JVM whose listener failed messages that now wait as retries in the schedule table
 * (3 s back-off): after a restart every message is processed successfully at least once, none is
 * lost and none is dead-lettered.
 *
 * <p>On PostgreSQL and MariaDB, not on an H2 file, for the reason {@link JdbcScheduleCrashTests}
 * gives: a retry's move from the schedule into its queue is a transaction that a kill can cut, and H2
 * does not always roll such a transaction back (docs/jdbc.md, "H2: a kill can leave part of a
 * transaction").
 */
@Tag("integration")
class JdbcRetryCrashTests {

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "POSTGRESQL", "MARIADB", "SQLITE" })
	void aSigkillWithRetriesWaitingInTheScheduleLosesNone(TestDatabases.Kind kind) throws Exception {
		String prefix = "r" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
		Set<String> succeeded = ConcurrentHashMap.newKeySet();
		AtomicInteger failedBeforeKill = new AtomicInteger();
		try (TestDatabases databases = new TestDatabases();
				HikariDataSource dataSource = databases.dataSource(kind, null, 8)) {
			try (ChildProcess child = ChildProcess.start(RetryKillTarget.class,
					FirstDeliveryFails.childLines(failedBeforeKill, succeeded), dataSource.getJdbcUrl(), prefix)) {
				// Killed when half the messages failed once: those wait as retries, the rest is in the queues.
				await().atMost(Duration.ofSeconds(20)).until(() -> failedBeforeKill.get() >= RetryKillTarget.MESSAGES / 2);
				child.kill();
			}
			int processedBeforeKill = succeeded.size();
			int waitingAtKill = TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + prefix + "schedule");
			assertThat(waitingAtKill).as("retries waiting in the schedule at the kill").isPositive();
			AtomicInteger retriedAfterRestart = new AtomicInteger();
			try (JdbcTransport transport = new JdbcTransport(dataSource, RetryKillTarget.settings(prefix))) {
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
			System.out.printf("retry SIGKILL (%s): %d failed once and %d processed before the kill, %d retries "
					+ "waiting in the schedule at the kill, %d processed after the restart, %d of %d distinct%n", kind,
					failedBeforeKill.get(), processedBeforeKill, waitingAtKill, retriedAfterRestart.get(),
					succeeded.size(), RetryKillTarget.MESSAGES);
			assertThat(succeeded).as("every message processed").hasSize(RetryKillTarget.MESSAGES);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + prefix + "dead_letter")).isZero();
		}
	}

}

package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A send locks the counter rows of its queues in ascending queue order, so two sends that share
 * queues wait for each other instead of deadlocking (PostgreSQL would find the deadlock only after
 * its {@code deadlock_timeout} and abort one). PostgreSQL takes them all in one statement, the
 * others one by one. Another transaction holds the last queue's counter while a send to every queue
 * runs: the send must hold every lower counter while it waits for the last one. (A send that took
 * the counters in descending order fails here on every database: it waits on the last queue holding
 * none.) Not on SQLite, which has no row locks: a write transaction locks the whole file.
 */
@Tag("integration")
class JdbcCounterLockOrderTests {

	private static final int QUEUES = 4;

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "SQLITE")
	void aSendHoldsTheLowerQueuesCountersWhileItWaitsForAHigherOne(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		String counters = settings.tablePrefix() + "queue";
		TestDatabases.withTransport(kind, this.dir, 4, settings, (dataSource, transport) -> {
			assertThat(transport.producer().sendBatchOrThrow("ledger", keyless(QUEUES))).hasSize(QUEUES);
			try (Connection holder = dataSource.getConnection(); Connection prober = dataSource.getConnection()) {
				for (int queue = 0; queue < QUEUES; queue++) {
					assertThat(isLocked(prober, counters, queue)).as("queue %d before the send", queue).isFalse();
				}
				holder.setAutoCommit(false);
				lock(holder, counters, QUEUES - 1);
				CompletableFuture<List<SendResult>> send = CompletableFuture
					.supplyAsync(() -> transport.producer().sendBatchOrThrow("ledger", keyless(2 * QUEUES)));
				for (int queue = 0; queue < QUEUES - 1; queue++) {
					int lower = queue;
					await().atMost(Duration.ofSeconds(20)).until(() -> isLocked(prober, counters, lower));
				}
				assertThat(send).isNotDone();
				holder.commit();
				assertThat(send.get()).hasSize(2 * QUEUES).allSatisfy((result) -> assertThat(result.isStored()).isTrue());
			}
			assertThat(TestDatabases.count(dataSource, "SELECT SUM(next_offset) FROM " + counters
					+ " WHERE topic = 'ledger'")).isEqualTo(3 * QUEUES);
		});
	}

	/** Keyless messages go round-robin, so a batch of at least {@value #QUEUES} touches every queue. */
	private static List<Object> keyless(int count) {
		List<Object> batch = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			batch.add("m-" + i);
		}
		return batch;
	}

	private static void lock(Connection connection, String counters, int queue) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement(
				"SELECT next_offset FROM " + counters + " WHERE topic = 'ledger' AND queue_id = ? FOR UPDATE")) {
			select.setInt(1, queue);
			try (ResultSet rs = select.executeQuery()) {
				assertThat(rs.next()).isTrue();
			}
		}
	}

	/** Whether another transaction holds the queue's counter: a lock without waiting fails. */
	private static boolean isLocked(Connection prober, String counters, int queue) {
		try (PreparedStatement select = prober.prepareStatement("SELECT next_offset FROM " + counters
				+ " WHERE topic = 'ledger' AND queue_id = ? FOR UPDATE NOWAIT")) {
			select.setInt(1, queue);
			select.executeQuery().close();
			return false;
		}
		catch (SQLException ex) {
			return true;
		}
	}

}

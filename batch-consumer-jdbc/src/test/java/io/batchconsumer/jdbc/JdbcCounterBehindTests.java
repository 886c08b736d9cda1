package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.SendOptions;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A queue's counter behind its stored messages: the state an H2 file database can be left in when
 * a producer process is killed inside {@code sendBatch} (H2 kept the message rows of the
 * interrupted transaction but rolled back its counter update; docs/jdbc.md, "H2: a kill can leave
 * part of a transaction"). Every later send to that queue would then fail on the message table's
 * primary key, for good. The producer moves the counter past the stored messages and stores the
 * batch after them.
 */
@Tag("integration")
class JdbcCounterBehindTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aSendToAQueueWhoseCounterIsBehindItsMessagesIsStoredAfterThem(TestDatabases.Kind kind) throws SQLException {
		withCounterBehind(kind, (dataSource, transport, tables) -> {
			List<SendResult> results = transport.producer().sendBatch("t", List.of("d", "e"));

			assertThat(results).as("stored after the left-over rows").allMatch(SendResult::isStored);
			assertThat(results).extracting(SendResult::offset).containsExactly(5L, 6L);
			assertThat(transport.producer().sendBatch("t", List.of("f")))
				.extracting(SendResult::offset).containsExactly(7L);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(DISTINCT msg_offset) FROM " + tables.message()))
				.isEqualTo(8);
		});
	}

	/**
	 * The schedule's mover inserts due messages through the same counters: behind, every move failed
	 * on the primary key, for good (logged at debug), so the delayed messages never reached their
	 * queue — {@code JdbcScheduleCrashTests} met it once on a clean clone ("not fulfilled within 30
	 * seconds", after the kill). The mover catches the counter up and moves them after the rows.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aDueScheduledMessageForAQueueWhoseCounterIsBehindIsMovedAfterTheRows(TestDatabases.Kind kind)
			throws SQLException {
		withCounterBehind(kind, (dataSource, transport, tables) -> {
			assertThat(transport.producer().sendBatch("t", List.of("later"),
					SendOptions.deliverAt(Instant.now().plusMillis(200)))).allMatch(SendResult::isStored);

			await().atMost(Duration.ofSeconds(30)).until(() -> transport.scheduledMessages() == 0);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + tables.message() + " WHERE msg_offset = 5"))
				.as("the moved message, after the left-over rows").isEqualTo(1);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(DISTINCT msg_offset) FROM " + tables.message()))
				.isEqualTo(6);
		});
	}

	/**
	 * The same inside a transaction of the caller ({@link CallerTransactions}): the producer catches
	 * the counter up on the caller's connection and stores after the rows, and the caller's
	 * transaction commits. On PostgreSQL the failed insert ends the transaction unless it is undone
	 * to a savepoint first: the send then failed, and the caller's transaction with it.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aSendInTheCallersTransactionToAQueueWhoseCounterIsBehindIsStoredAfterThem(TestDatabases.Kind kind)
			throws SQLException {
		withCounterBehind(kind, (dataSource, transport, tables) -> {
			try (Connection transaction = dataSource.getConnection()) {
				transaction.setAutoCommit(false);
				transport.joinCallerTransactions(new CallerTransactions() {

					@Override
					public Connection current() {
						return transaction;
					}

					@Override
					public void afterCommit(Runnable action) {
					}

					@Override
					public void markRollbackOnly() {
					}

				});
				List<SendResult> results = transport.producer().sendBatch("t", List.of("d", "e"));
				transaction.commit();

				assertThat(results).as("stored after the left-over rows").allMatch(SendResult::isStored);
				assertThat(results).extracting(SendResult::offset).containsExactly(5L, 6L);
			}
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(DISTINCT msg_offset) FROM " + tables.message()))
				.isEqualTo(7);
		});
	}

	/**
	 * One queue holding offsets 0 to 2 sent normally and 3 and 4 left over: its counter hands out 3.
	 */
	private void withCounterBehind(TestDatabases.Kind kind, Check check) throws SQLException {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		JdbcTables tables = JdbcTables.of(settings.tablePrefix());
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			assertThat(transport.producer().sendBatch("t", List.of("a", "b", "c"))).allMatch(SendResult::isStored);
			leftOver(dataSource, tables, 3);
			leftOver(dataSource, tables, 4);
			check.run(dataSource, transport, tables);
		}
	}

	@FunctionalInterface
	private interface Check {

		void run(HikariDataSource dataSource, JdbcTransport transport, JdbcTables tables) throws SQLException;

	}

	/** A message row at the queue's next offset, without the counter update of its transaction. */
	private static void leftOver(HikariDataSource dataSource, JdbcTables tables, long offset) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement insert = connection.prepareStatement("INSERT INTO " + tables.message()
						+ " (topic, queue_id, msg_offset, headers, payload, created_at) VALUES ('t', 0, ?, '', ?, 0)")) {
			insert.setLong(1, offset);
			insert.setBytes(2, "left over".getBytes());
			insert.executeUpdate();
		}
	}

}

package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.ReplayResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sends that join a transaction their caller has open ({@link CallerTransactions}), with a plain
 * thread-bound connection as the caller's transaction, on the real databases.
 */
@Tag("integration")
class JdbcCallerTransactionTests {

	private static final int QUEUES = 4;

	@TempDir
	Path dir;

	/**
	 * Two transactions each forward two messages with one send per message, to two queues of one topic
	 * in opposite orders: each holds the counter of its first queue while it waits for the other's, and
	 * the database ends one of them (H2 and MariaDB roll the whole transaction back and go on, PostgreSQL
	 * aborts it). The callers do not look at the results and commit, as the delivery of a listener that
	 * ignores them does: a send that was reported stored in a transaction whose commit returned must be
	 * in the table, so the victim's failed send must keep its transaction from committing.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "SQLITE")
	void aTransactionWhoseJoinedSendFailedDoesNotCommitItsEarlierSends(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(QUEUES);
		TestDatabases.withTransport(kind, this.dir, 6, settings, (dataSource, transport) -> {
			ThreadTransactions caller = new ThreadTransactions();
			transport.joinCallerTransactions(caller);
			assertThat(transport.producer().sendBatchOrThrow("ledger", List.of("topic exists"))).hasSize(1);
			String first = keyOf(0);
			String second = keyOf(1);
			CyclicBarrier bothHoldOne = new CyclicBarrier(2);
			CompletableFuture<Sent> forward = CompletableFuture
				.supplyAsync(() -> caller.inTransaction(dataSource, transport, bothHoldOne, first, second));
			CompletableFuture<Sent> backward = CompletableFuture
				.supplyAsync(() -> caller.inTransaction(dataSource, transport, bothHoldOne, second, first));
			List<Sent> transactions = List.of(forward.get(60, TimeUnit.SECONDS), backward.get(60, TimeUnit.SECONDS));
			int committed = 0;
			for (Sent sent : transactions) {
				if (sent.committed()) {
					committed += (int) sent.results().stream().filter(SendResult::isStored).count();
				}
			}
			assertThat(TestDatabases.count(dataSource,
					"SELECT COUNT(*) FROM " + settings.tablePrefix() + "message WHERE topic = 'ledger'"))
				.as("messages stored: the first one and each send reported stored in a committed transaction %s",
						transactions)
				.isEqualTo(1 + committed);
		});
	}

	/**
	 * A dead-letter replay called inside a transaction of the caller that then rolls back: the replay
	 * sends in a transaction of its own, as its mark commits on its own, so a letter marked replayed
	 * is in its topic. Joining the caller's transaction, the replayed message was rolled back while
	 * the letter stayed marked replayed.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = "H2")
	void aReplayInsideACallersTransactionThatRollsBackKeepsTheMessageItMarked(TestDatabases.Kind kind)
			throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(QUEUES);
		TestDatabases.withTransport(kind, this.dir, 4, settings, (dataSource, transport) -> {
			try (Connection connection = dataSource.getConnection()) {
				connection.createStatement().executeUpdate("INSERT INTO " + settings.tablePrefix() + "dead_letter"
						+ " (group_id, topic, queue_id, msg_offset, msg_key, headers, payload, attempts, error_class,"
						+ " error_message, created_at) VALUES ('billing', 'payments', 0, 7, 'k', '', X'6869', 3,"
						+ " 'java.lang.IllegalStateException', 'failed', 0)");
			}
			String id = transport.storedDeadLetters().list("billing", List.of("payments"), 0, 10).deadLetters().get(0).id();
			ThreadTransactions caller = new ThreadTransactions();
			transport.joinCallerTransactions(caller);
			try (Connection transaction = dataSource.getConnection()) {
				transaction.setAutoCommit(false);
				caller.connection.set(transaction);
				try {
					assertThat(transport.storedDeadLetters().replay("billing", List.of("payments"), List.of(id)))
						.extracting(ReplayResult::outcome)
						.containsExactly(ReplayResult.Outcome.REPLAYED);
				}
				finally {
					caller.connection.remove();
					transaction.rollback();
				}
			}
			assertThat(transport.storedDeadLetters().show("billing", List.of("payments"), id).orElseThrow().replayedAt())
				.isNotNull();
			assertThat(TestDatabases.count(dataSource,
					"SELECT COUNT(*) FROM " + settings.tablePrefix() + "message WHERE topic = 'payments'"))
				.as("the replayed message of a letter marked replayed")
				.isEqualTo(1);
		});
	}

	/** A caller's transaction: the results of its sends, and whether its commit returned. */
	record Sent(List<SendResult> results, boolean committed) {
	}

	/** A key of the queue, as the producer maps keys. */
	private static String keyOf(int queue) {
		for (int i = 0;; i++) {
			if (Math.floorMod(("k" + i).hashCode(), QUEUES) == queue) {
				return "k" + i;
			}
		}
	}

	/** The caller's transaction: a connection bound to the thread. */
	static final class ThreadTransactions implements CallerTransactions {

		private final ThreadLocal<Connection> connection = new ThreadLocal<>();

		private final ThreadLocal<List<Runnable>> afterCommit = ThreadLocal.withInitial(ArrayList::new);

		@Override
		public Connection current() {
			return this.connection.get();
		}

		@Override
		public void afterCommit(Runnable action) {
			if (this.connection.get() == null) {
				action.run();
			}
			else {
				this.afterCommit.get().add(action);
			}
		}

		private final ThreadLocal<Boolean> rollbackOnly = ThreadLocal.withInitial(() -> false);

		@Override
		public void markRollbackOnly() {
			this.rollbackOnly.set(true);
		}

		/**
		 * Sends one message with each key, one send each, in one transaction, and commits it whatever the
		 * results, unless a send marked it rollback-only.
		 */
		Sent inTransaction(DataSource dataSource, JdbcTransport transport, CyclicBarrier afterFirst, String... keys) {
			List<SendResult> results = new ArrayList<>();
			try (Connection transaction = dataSource.getConnection()) {
				transaction.setAutoCommit(false);
				this.connection.set(transaction);
				try {
					for (int i = 0; i < keys.length; i++) {
						results.addAll(transport.producer().sendBatch("ledger", List.of(OutgoingMessage.of(keys[i], "m"))));
						if (i == 0) {
							afterFirst.await(30, TimeUnit.SECONDS);
						}
					}
					if (this.rollbackOnly.get()) {
						transaction.rollback();
						return new Sent(results, false);
					}
					try {
						transaction.commit();
					}
					catch (SQLException ex) {
						return new Sent(results, false);
					}
					this.afterCommit.get().forEach(Runnable::run);
					return new Sent(results, true);
				}
				finally {
					this.connection.remove();
					this.afterCommit.remove();
					this.rollbackOnly.remove();
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}

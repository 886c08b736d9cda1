package io.batchconsumer.reliability.crash;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.spring.annotation.BatchListener;

/**
 * The consumer that the crash-loop tests run in a process of its own and kill with SIGKILL: a
 * {@code @BatchListener} on topic {@code crash} (or {@code crash.topic}) that records every message it processes in the
 * {@code processed} table of the same database, in its own transaction, before it returns (with
 * {@code batch-consumer.processing=exactly-once}: in the delivery's transaction, which also marks
 * the messages complete). The table has no unique key, so a message processed twice leaves two rows.
 *
 * <p>It prints {@code READY} once the application is started, then every 50 ms
 * {@code STATS <commitLag> <backlog> <succeeded>} from its container's snapshot, which the test
 * reads from its standard output. Every setting comes from the command line
 * ({@code --spring.datasource.url=...}, {@code --crash.life=3}, ...).
 *
 * <p>Threading: the listener runs on the container's worker threads; the reporter on a daemon
 * thread of its own.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(CrashLoopApplication.Recorder.class)
public class CrashLoopApplication {

	/** The listener id, and the topic and group unless {@code crash.topic} names another. */
	public static final String TOPIC = "crash";

	/**
	 * Starts the consumer.
	 * @param args Spring Boot command-line properties
	 */
	public static void main(String[] args) {
		CrashLoopMain.run(CrashLoopApplication.class, TOPIC, args);
	}

	/**
	 * Records processed messages durably: one transaction per slice, committed before returning.
	 * With {@code crash.fail-first-attempt-every=n} (n > 0) the messages whose id is a multiple of n
	 * are reported failed at their first attempt, so that they are retried (through the retry queue
	 * when a back-off exceeds {@code retry.blocking-limit}).
	 */
	@Component
	static class Recorder {

		private final DataSource dataSource;

		private final int life;

		/** With {@code processing: exactly-once}: write on the delivery's transaction, do not commit. */
		private final boolean joinTransaction;

		/** Messages whose id is a multiple of this fail their first attempt; 0 for none. */
		private final int failEvery;

		Recorder(DataSource dataSource, @Value("${crash.life}") int life,
				@Value("${batch-consumer.processing:at-least-once}") String processing,
				@Value("${crash.fail-first-attempt-every:0}") int failEvery) {
			this.dataSource = dataSource;
			this.life = life;
			this.joinTransaction = processing.equals("exactly-once");
			this.failEvery = failEvery;
		}

		@BatchListener(id = TOPIC, topics = "${crash.topic:" + TOPIC + "}")
		BatchResult onMessages(List<Message<String>> messages) throws SQLException {
			List<Message<String>> failing = messages.stream().filter(this::failsNow).toList();
			List<Message<String>> passing = messages.stream().filter((message) -> !failsNow(message)).toList();
			if (!passing.isEmpty()) {
				write(passing);
			}
			return BatchResult.failed(failing);
		}

		private boolean failsNow(Message<String> message) {
			return this.failEvery > 0 && message.deliveryAttempt() == 1
					&& Long.parseLong(message.payload()) % this.failEvery == 0;
		}

		private void write(List<Message<String>> messages) throws SQLException {
			if (this.joinTransaction) {
				Connection connection = DataSourceUtils.getConnection(this.dataSource);
				try (PreparedStatement insert = insert(connection, messages)) {
					insert.executeBatch();
				}
				finally {
					DataSourceUtils.releaseConnection(connection, this.dataSource);
				}
				return;
			}
			try (Connection connection = this.dataSource.getConnection()) {
				connection.setAutoCommit(false);
				try (PreparedStatement insert = insert(connection, messages)) {
					insert.executeBatch();
					connection.commit();
				}
				catch (SQLException | RuntimeException ex) {
					connection.rollback();
					throw ex;
				}
			}
		}

		private PreparedStatement insert(Connection connection, List<Message<String>> messages) throws SQLException {
			PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO processed (life, msg_id, queue_id, msg_offset) VALUES (?, ?, ?, ?)");
			for (Message<String> message : messages) {
				insert.setInt(1, this.life);
				insert.setLong(2, Long.parseLong(message.payload()));
				insert.setInt(3, message.partition());
				insert.setLong(4, message.offset());
				insert.addBatch();
			}
			return insert;
		}

	}

}

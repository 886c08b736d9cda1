package io.batchconsumer.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;
import io.batchconsumer.jdbc.SqliteConnections;
import io.batchconsumer.jdbc.SqliteSettings;
import io.batchconsumer.reliability.crash.CrashLoopApplication;
import io.batchconsumer.testsupport.ChildProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two consumer processes ({@link CrashLoopApplication}, each a JVM with its own pool) on one SQLite
 * file, while this JVM, a third process on the file, keeps producing: they share the queues of the
 * topic, and when one stops gracefully (SIGTERM) it commits what it processed and deletes its leases,
 * so the other takes the queues at its next heartbeat, before the stopped one's leases would have
 * expired. At the end every message was processed exactly once: a graceful stop, unlike a kill,
 * leaves nothing processed and uncommitted.
 */
@Tag("integration")
class SqliteHandOverTests {

	private static final int QUEUES = 4;

	/** Short enough for a quick share-out (a heartbeat every third), long enough to tell a release from an expiry. */
	private static final Duration LEASE = Duration.ofSeconds(9);

	@TempDir
	Path directory;

	@Test
	void twoProcessesShareOneSqliteFileAndTheStoppedOneHandsItsQueuesOverAtOnce() throws Exception {
		String url = "jdbc:sqlite:" + this.directory.resolve("queue.db").toAbsolutePath();
		List<String> output = new CopyOnWriteArrayList<>();
		try (HikariDataSource pool = pool(url);
				JdbcTransport transport = new JdbcTransport(pool, JdbcSettings.defaults()
					.withInitializeSchema(SchemaInitialization.ALWAYS)
					.withQueuesPerTopic(QUEUES)
					.withInstanceId("producer"));
				Producing producing = new Producing(transport)) {
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			jdbc.execute("CREATE TABLE processed (id INTEGER PRIMARY KEY AUTOINCREMENT, life INT NOT NULL,"
					+ " msg_id BIGINT NOT NULL, queue_id INT NOT NULL, msg_offset BIGINT NOT NULL,"
					+ " at INTEGER DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)))");
			producing.sendNext(); // creates the topic with its queues before the consumers subscribe
			producing.start();
			ChildProcess first = start(url, "first", 1, output);
			ChildProcess second = start(url, "second", 2, output);
			try {
				await("both consumers hold queues and work (output: " + output + ")").atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> leases(jdbc, "first") == QUEUES / 2 && leases(jdbc, "second") == QUEUES / 2
							&& processedBy(jdbc, 1) > 0 && processedBy(jdbc, 2) > 0);
				long firstExpires = jdbc.queryForObject(
						"SELECT MIN(expires_at) FROM bc_lease WHERE owner_id LIKE 'first-%'", Long.class);

				first.stop();

				assertThat(leases(jdbc, "first")).as("leases of the stopped consumer").isZero();
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM bc_member WHERE member_id LIKE 'first-%'",
						Integer.class))
					.as("member rows of the stopped consumer")
					.isZero();
				await("the second consumer takes every queue (output: " + output + ")").atMost(Duration.ofSeconds(30))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> leases(jdbc, "second") == QUEUES);
				long takenOver = System.currentTimeMillis();
				assertThat(takenOver).as("moment the second consumer held every queue, against the moment the "
						+ "stopped one's leases would have expired").isLessThan(firstExpires);

				producing.close();
				int sent = producing.sent();
				await("every message processed (output: " + output + ")").atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofMillis(200))
					.untilAsserted(() -> new JdbcQueues(jdbc).assertCommittedToTheEnd(CrashLoopApplication.TOPIC,
							CrashLoopApplication.TOPIC));
				second.stop();
				long distinct = jdbc.queryForObject("SELECT COUNT(DISTINCT msg_id) FROM processed", Long.class);
				long rows = jdbc.queryForObject("SELECT COUNT(*) FROM processed", Long.class);
				System.out.printf("SqliteHandOverTests: %d messages sent, %d processed by the first consumer, "
						+ "%d rows, %d distinct; taken over %d ms before the first one's leases expired%n", sent,
						processedBy(jdbc, 1), rows, distinct, firstExpires - takenOver);
				assertThat(distinct).as("messages processed (output: %s)", output).isEqualTo(sent);
				assertThat(rows).as("processing rows: none twice (twice as msg_id life/queue/offset: %s; output: %s)",
						twice(jdbc), output)
					.isEqualTo(sent);
			}
			finally {
				first.close();
				second.close();
			}
		}
	}

	private static ChildProcess start(String url, String instance, int life, List<String> output) {
		return CrashLoopTests.startConsumer(List.of("spring.datasource.url=" + url, "spring.jmx.enabled=false",
				"crash.life=" + life, "batch-consumer.group=" + CrashLoopApplication.TOPIC,
				"batch-consumer.jdbc.instance-id=" + instance, "batch-consumer.jdbc.lease-duration=" + LEASE.toSeconds() + "s",
				"batch-consumer.jdbc.queues-per-topic=" + QUEUES, "batch-consumer.thread-size=4",
				"batch-consumer.consumer-batch-size=10", "batch-consumer.shutdown-timeout=5s",
				"spring.datasource.hikari.maximum-pool-size=6"), (line) -> output.add(instance + ": " + line));
	}

	private static int leases(JdbcTemplate jdbc, String instance) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM bc_lease WHERE owner_id LIKE ? AND expires_at >= ?",
				Integer.class, instance + "-%", System.currentTimeMillis());
	}

	private static List<String> twice(JdbcTemplate jdbc) {
		return jdbc.query("SELECT msg_id, life, queue_id, msg_offset, at FROM processed WHERE msg_id IN"
				+ " (SELECT msg_id FROM processed GROUP BY msg_id HAVING COUNT(*) > 1) ORDER BY msg_id, id",
				(rs, row) -> rs.getLong(1) + " " + rs.getInt(2) + "/" + rs.getInt(3) + "/" + rs.getLong(4) + " at " + rs.getLong(5));
	}

	private static long processedBy(JdbcTemplate jdbc, int life) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM processed WHERE life = ?", Long.class, life);
	}

	private static HikariDataSource pool(String url) {
		HikariDataSource pool = new HikariDataSource();
		pool.setDataSource(new SqliteConnections(url, SqliteSettings.connectionProperties()));
		pool.setMaximumPoolSize(3);
		return pool;
	}

	/** Sends batches of 20 keyed messages, ids counting up from 0, on a thread of its own until closed. */
	private static final class Producing implements AutoCloseable {

		private final JdbcTransport transport;

		private final AtomicInteger next = new AtomicInteger();

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final Thread thread = new Thread(this::run, "hand-over-producer");

		/** The first failure of the thread, rethrown by {@link #close()}. */
		private volatile Throwable failure;

		Producing(JdbcTransport transport) {
			this.transport = transport;
		}

		void start() {
			this.thread.start();
		}

		/** Sends the next batch; every message of it must be stored. */
		void sendNext() {
			int first = this.next.get();
			List<OutgoingMessage> batch = IntStream.range(first, first + 20)
				.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 64), String.valueOf(id)))
				.toList();
			List<SendResult> results = this.transport.producer().sendBatch(CrashLoopApplication.TOPIC, batch);
			assertThat(results).allMatch(SendResult::isStored);
			this.next.addAndGet(batch.size());
		}

		private void run() {
			try {
				while (this.running.get()) {
					sendNext();
					Thread.sleep(50); // a steady trickle of traffic, not synchronisation
				}
			}
			catch (Throwable ex) {
				this.failure = ex;
			}
		}

		/** The messages stored. */
		int sent() {
			return this.next.get();
		}

		@Override
		public void close() throws InterruptedException {
			this.running.set(false);
			this.thread.join(30_000);
			if (this.failure != null) {
				throw new AssertionError("The producer failed", this.failure);
			}
		}

	}

}

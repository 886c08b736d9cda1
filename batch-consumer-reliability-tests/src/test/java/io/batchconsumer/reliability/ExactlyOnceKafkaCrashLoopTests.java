package io.batchconsumer.reliability;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.reliability.CrashLoopTests.Database;
import io.batchconsumer.reliability.CrashLoopTests.Store;
import io.batchconsumer.reliability.crash.CrashLoopApplication;
import io.batchconsumer.testsupport.ChildProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The SIGKILL crash loop with {@code processing: exactly-once} on the Kafka transport: offsets in
 * Kafka, the rows and the completion marks in PostgreSQL (not in an H2 file: H2 does not always
 * roll back a transaction that was in flight at a SIGKILL, see docs/exactly-once.md and
 * {@code docs/tools/H2KillConsistency.java}, so no consumer can be exact on it across kills). The consumer
 * ({@link CrashLoopApplication}) inserts one row per message into a table without a unique key
 * inside the delivery's transaction and is killed at random, 10 times, then runs to the
 * end. Every record of the topic then has exactly one row (counted per partition and offset, see
 * {@link KafkaRows}). The same loop in {@code at-least-once} mode (two
 * kills) must show duplicates, so the exactly-once assertion can fail: the kills and commit
 * intervals are those of {@link ExactlyOnceCrashLoopTests}, whose comment says why the first life
 * always dies with finished work that it has not committed.
 *
 * <p>On the consumer group protocol too (KIP-848, {@code batch-consumer.kafka.group-protocol=consumer},
 * exactly-once only): there the broker assigns the partitions and a killed static member's instance
 * id is taken back when its session ends, 2 s here (the group's {@code consumer.session.timeout.ms}).
 *
 * <p>Default run: 6,000 messages, 10 kills (classic), 1,000 messages and 1 kill (consumer protocol).
 * Soak run ({@code -Dbatch-consumer.soak=true}): 20,000 messages, 60 kills each.
 */
@Tag("integration")
class ExactlyOnceKafkaCrashLoopTests {

	private static final int PARTITIONS = 4;

	@TempDir
	Path directory;

	@ParameterizedTest
	@ValueSource(strings = { "exactly-once", "at-least-once" })
	void afterRepeatedSigkillsEveryMessageHasExactlyOneRow(String processing) throws Exception {
		run(processing, "classic", Soak.pick(6_000, 20_000), processing.equals("exactly-once") ? Soak.pick(10, 60) : 2);
	}

	@Test
	void onTheConsumerGroupProtocolAfterSigkillsEveryMessageHasExactlyOneRow() throws Exception {
		run("exactly-once", "consumer", Soak.pick(1_000, 20_000), Soak.pick(1, 60));
	}

	private void run(String processing, String protocol, int total, int kills) throws Exception {
		boolean exactlyOnce = processing.equals("exactly-once");
		String name = processing + (protocol.equals("classic") ? "" : " on the " + protocol + " protocol");
		long seed = Soak.seed("ExactlyOnceKafkaCrashLoopTests " + name);
		Random random = new Random(seed);
		try (RestartableKafka broker = RestartableKafka.startOnFreePort();
				KafkaTransport producer = new KafkaTransport(Map.of("bootstrap.servers", broker.bootstrap()));
				Database database = Database.start(Store.POSTGRESQL, this.directory)) {
			broker.createTopic(CrashLoopApplication.TOPIC, PARTITIONS);
			if (protocol.equals("consumer")) {
				// A killed static member keeps its instance id until its session ends: 2 s, not 45.
				broker.setGroupConfig(CrashLoopApplication.TOPIC, "consumer.session.timeout.ms", "2000");
			}
			database.execute("CREATE TABLE processed (life INT NOT NULL, msg_id BIGINT NOT NULL, queue_id INT NOT NULL,"
					+ " msg_offset BIGINT NOT NULL)");
			// Half before the first life, the rest in steps between lives: the kills meet a backlog that
			// is being processed (Kafka consumes a small step before a kill otherwise).
			KafkaCrashLoopTests.send(producer, 0, total / 2);
			int sent = total / 2;
			long started = System.nanoTime();
			// When each life started and was killed, and what it logged (at WARN): the failure messages show it.
			List<String> lives = Collections.synchronizedList(new ArrayList<>());
			for (int life = 0; life <= kills; life++) {
				int upTo = total / 2 + (int) ((long) (total - total / 2) * (life + 1) / (kills + 1));
				KafkaCrashLoopTests.send(producer, sent, upTo);
				sent = upTo;
				int lifeNumber = life;
				lives.add("life " + life + " starts at " + System.currentTimeMillis());
				ChildProcess consumer = CrashLoopTests.startConsumer(
						properties(database, broker, life, life == kills, processing, protocol),
						(line) -> lives.add("life " + lifeNumber + ": " + line));
				try {
					if (life == kills) {
						finish(database, broker, producer, consumer, total, lives);
					}
					else {
						consumer.killAtRandom(random, life > 0 && random.nextInt(5) == 0, Duration.ofMillis(400));
						lives.add("life " + life + " killed at " + System.currentTimeMillis());
					}
				}
				finally {
					consumer.kill();
				}
			}
			KafkaRows counted;
			String repeated;
			try (HikariDataSource pool = database.pool()) {
				counted = KafkaRows.count(pool, broker.endOffsets(CrashLoopApplication.TOPIC, PARTITIONS));
				repeated = (exactlyOnce && counted.duplicates() > 0) ? repeated(pool) : "";
			}
			long lost = total - counted.ids();
			long duplicates = counted.duplicates();
			System.out.printf("ExactlyOnceKafkaCrashLoopTests %s: %d messages (stored twice by the producer %d), %d kills,"
					+ " lost %d, duplicates %d, %d s%n", name, total, counted.storedTwice(), kills, lost, duplicates,
					Duration.ofNanos(System.nanoTime() - started).toSeconds());
			String run = name + ", seed " + seed + ", " + deadLetters(producer) + ", " + logged(lives);
			assertThat(lost).as("messages never processed (%s)", run).isZero();
			assertThat(counted.unprocessed()).as("records of the topic never processed (%s)", run).isZero();
			if (exactlyOnce) {
				assertThat(duplicates).as("duplicate rows (%s)%s", run, repeated).isZero();
			}
			else {
				assertThat(duplicates).as("duplicate rows at-least-once (%s)", run).isPositive();
			}
		}
	}

	private static List<String> properties(Database database, RestartableKafka broker, int life, boolean last,
			String processing, String protocol) {
		List<String> properties = new ArrayList<>(database.dataSourceProperties(last));
		properties.addAll(List.of("spring.datasource.hikari.maximum-pool-size=6", "spring.jmx.enabled=false",
				"crash.life=" + life, "batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=" + broker.bootstrap(),
				"spring.kafka.consumer.properties.group.instance.id=crash-consumer",
				"spring.kafka.consumer.properties.session.timeout.ms=6000",
				"spring.kafka.consumer.properties.heartbeat.interval.ms=1000",
				"batch-consumer.group=" + CrashLoopApplication.TOPIC, "batch-consumer.thread-size=4",
				"batch-consumer.consumer-batch-size=10",
				"batch-consumer.commit.interval=" + ExactlyOnceCrashLoopTests.commitInterval(life, last),
				"batch-consumer.shutdown-timeout=10s"));
		properties.add("batch-consumer.processing=" + processing);
		properties.add("batch-consumer.kafka.group-protocol=" + protocol);
		return properties;
	}

	/** The rows of records processed more than once (life, id, partition, offset), for the failure message. */
	private static String repeated(HikariDataSource pool) {
		return "; life, id, partition, offset of the repeated records:" + tuples(pool,
				"SELECT p.life, p.msg_id, p.queue_id, p.msg_offset FROM processed p"
						+ " JOIN (SELECT queue_id, msg_offset FROM processed GROUP BY queue_id, msg_offset HAVING COUNT(*) > 1) r"
						+ " ON p.queue_id = r.queue_id AND p.msg_offset = r.msg_offset"
						+ " ORDER BY p.queue_id, p.msg_offset, p.life LIMIT 60");
	}

	/** The rows a query gives, each as {@code (a, b, ...)}, for a failure message. */
	private static String tuples(HikariDataSource pool, String sql) {
		StringBuilder rows = new StringBuilder();
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(sql)) {
			int columns = rs.getMetaData().getColumnCount();
			while (rs.next()) {
				rows.append(" (");
				for (int column = 1; column <= columns; column++) {
					rows.append((column > 1) ? ", " : "").append(rs.getString(column));
				}
				rows.append(')');
			}
		}
		catch (SQLException ex) {
			rows.append(" (not readable: ").append(ex).append(')');
		}
		return rows.toString();
	}

	/** What the last life reached, for the failure message. */
	private static String progress(Database database, RestartableKafka broker, int total) {
		try (HikariDataSource pool = database.sharedPool()) {
			KafkaRows counted = KafkaRows.count(pool, broker.endOffsets(CrashLoopApplication.TOPIC, PARTITIONS));
			return counted + " (" + counted.ids() + " of " + total + " message ids), " + marks(pool)
					+ " are marked complete (a dead letter is marked without a row); partitions not committed to their end: "
					+ broker.uncommitted(CrashLoopApplication.TOPIC, CrashLoopApplication.TOPIC, PARTITIONS)
					+ "; marks without a row (partition, offset):" + marksWithoutARow(pool);
		}
		catch (Exception ex) {
			return "(progress not readable: " + ex + ")";
		}
	}

	/** The completion marks, {@code none} without the table (at-least-once). */
	private static String marks(HikariDataSource pool) {
		try {
			return Long.toString(new CompletionTable("bc_").markCount(pool));
		}
		catch (IllegalStateException ex) {
			return "none";
		}
	}

	/** The first 30 marks that have no row (partition, offset); a dead letter is one. */
	private static String marksWithoutARow(HikariDataSource pool) throws SQLException {
		Set<List<Long>> processed = new HashSet<>();
		List<String> groups = new ArrayList<>();
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			try (ResultSet rs = statement.executeQuery("SELECT queue_id, msg_offset FROM processed")) {
				while (rs.next()) {
					processed.add(List.of(rs.getLong(1), rs.getLong(2)));
				}
			}
			try (ResultSet rs = statement.executeQuery("SELECT DISTINCT group_id FROM bc_completions")) {
				while (rs.next()) {
					groups.add(rs.getString(1));
				}
			}
		}
		StringBuilder found = new StringBuilder();
		int shown = 0;
		for (String group : groups) {
			for (int partition = 0; partition < PARTITIONS; partition++) {
				TopicPartition queue = new TopicPartition(CrashLoopApplication.TOPIC, partition);
				for (long offset : new CompletionTable("bc_").marks(pool, group, queue)) {
					if (!processed.contains(List.of((long) partition, offset)) && shown++ < 30) {
						found.append(" (").append(partition).append(", ").append(offset).append(')');
					}
				}
			}
		}
		return found.toString();
	}

	/** The dead letters the lives wrote (each is logged at WARN too, but a killed life may not have printed it). */
	private static String deadLetters(KafkaTransport transport) {
		try {
			DeadLetterPage page = transport.storedDeadLetters()
				.list(CrashLoopApplication.TOPIC, List.of(CrashLoopApplication.TOPIC), 0, 20);
			return page.total() + " dead letters" + (page.deadLetters().isEmpty() ? ""
					: " " + page.deadLetters().stream().map((letter) -> letter + ": " + letter.errorMessage()).toList());
		}
		catch (RuntimeException ex) {
			return "(dead letters not readable: " + ex + ")";
		}
	}

	/** When each life started and was killed, and the lines it logged (the last 80). */
	private static String logged(List<String> lives) {
		synchronized (lives) {
			return "the lives: " + String.join(" | ", lives.subList(Math.max(0, lives.size() - 80), lives.size()));
		}
	}

	private static void finish(Database database, RestartableKafka broker, KafkaTransport transport,
			ChildProcess consumer, int total, List<String> lives) throws InterruptedException {
		consumer.awaitReady(Duration.ofMinutes(2));
		try (HikariDataSource pool = database.sharedPool()) {
			await().atMost(Duration.ofMinutes(3))
				.pollInterval(Duration.ofMillis(300))
				.ignoreExceptions()
				.until(() -> KafkaRows.count(pool, broker.endOffsets(CrashLoopApplication.TOPIC, PARTITIONS))
					.unprocessed() == 0
						&& broker.uncommitted(CrashLoopApplication.TOPIC, CrashLoopApplication.TOPIC, PARTITIONS).isEmpty());
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError("The last life did not finish: " + progress(database, broker, total) + "; "
					+ deadLetters(transport) + "; " + logged(lives), ex);
		}
		consumer.stop();
	}

}

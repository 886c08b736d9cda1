package io.batchconsumer.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.reliability.CrashLoopTests.Crash;
import io.batchconsumer.reliability.CrashLoopTests.Database;
import io.batchconsumer.reliability.CrashLoopTests.Store;
import io.batchconsumer.reliability.crash.CrashLoopApplication;
import io.batchconsumer.testsupport.ChildProcess;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The crash loop on the Kafka transport: an in-process broker in this JVM (topic {@code crash},
 * 4 partitions), and the {@link CrashLoopApplication} consumer in a JVM of its own with
 * {@code batch-consumer.transport=kafka}, killed with SIGKILL at random moments — a quarter of them
 * during start-up — and started again, while this JVM produces keyed messages ({@code sendBatch},
 * acks=all): half before the first life, so that kills meet a backlog, the rest between lives. The consumer records every message it processes in an H2 file
 * database ({@code WRITE_DELAY=0}; see {@link CrashLoopTests} for how the lives open it), in its own
 * transaction, before the listener returns.
 *
 * <p>At the end: every produced message was processed at least once, the group's committed offsets
 * ({@code listConsumerGroupOffsets}) are the end offsets of every partition, and the duplicates are
 * at most the messages that were processed but not committed at the kills (read from the broker
 * after each kill; "at most" because a commit the dying consumer had already sent may still land
 * after the read), each kill's share within {@link #bound(Crash)}.
 *
 * <p><b>The bound, and why it is not the JDBC one.</b> On JDBC a commit is stored when the call
 * returns, so the window is a function of the settings ({@link CrashLoopTests#WINDOW_BOUND}). On
 * Kafka a commit is sent asynchronously and stored a round trip later; meanwhile workers keep
 * finishing. So what a kill delivers again is the settings' window <em>plus</em> what finished
 * during the last commit interval and round trip, which depends on throughput and broker latency,
 * not on settings. The first test runs (with {@code commit.interval=0}: one commit per finished
 * batch, queued at the coordinator) saw 2,230 messages processed but not committed at one kill
 * against a settings window of 1,008. The container's {@code commitLag} (fetched position minus
 * the last <em>acknowledged</em> commit) measures exactly this window, so each kill is held to
 * the largest commit lag the consumer reported in that life plus what it may have fetched since
 * its last report (50 ms earlier): per partition at most {@code max-span + pull-batch-size} ahead
 * of its lowest unfinished message. The settings window is printed next to it for comparison. The
 * consumer commits every 100 ms rather than after every batch, which keeps the round trip short.
 *
 * <p>The consumer uses static membership ({@code group.instance.id}): a restarted life takes the
 * killed member's place at once instead of waiting for its session to expire, which keeps the
 * default run short; the killed member's uncommitted work is delivered again all the same.
 *
 * <p>Both group protocols: the classic one, and the consumer protocol (KIP-848,
 * {@code batch-consumer.kafka.group-protocol=consumer}) on a topic and group of its own, where the
 * member's static membership and the broker-side assignment replace the classic rebalance.
 *
 * <p>Default run: classic 20,000 messages and 5 kills; consumer protocol 1,000 messages and 1
 * kill. Soak run ({@code -Dbatch-consumer.soak=true}): 200,000 messages and 40 kills each.
 */
@Tag("integration")
class KafkaCrashLoopTests {

	private static final int PARTITIONS = 4;


	private static final int PULL_BATCH = 32;

	private static final int MAX_SPAN = 200;

	/**
	 * The most messages one kill may deliver again: the largest commit lag the consumer reported in
	 * that life, plus what it may have fetched after its last report (see the class comment).
	 * @param crash the kill
	 * @return the bound
	 */
	static long bound(Crash crash) {
		return crash.maxReportedLag() + (long) PARTITIONS * (MAX_SPAN + PULL_BATCH);
	}

	@TempDir
	Path directory;

	@Test
	void everyMessageIsProcessedAfterRepeatedSigkillsAndTheGroupCommitsToTheEnd() throws Exception {
		run(new Row("classic", CrashLoopApplication.TOPIC, Soak.pick(20_000, 200_000), Soak.pick(5, 40)));
	}

	@Test
	void onTheConsumerGroupProtocolEveryMessageIsProcessedAfterSigkillsAndTheGroupCommitsToTheEnd() throws Exception {
		run(new Row("consumer", "crash-kip848", Soak.pick(1_000, 200_000), Soak.pick(1, 40)));
	}

	/**
	 * One crash loop.
	 * @param protocol the group protocol
	 * @param topic the topic, also the group
	 * @param total the messages
	 * @param kills the lives killed
	 */
	private record Row(String protocol, String topic, int total, int kills) {
	}

	private void run(Row row) throws Exception {
		long seed = Soak.seed("KafkaCrashLoopTests " + row.protocol());
		Random random = new Random(seed);
		int total = row.total();
		int kills = row.kills();
		String topic = row.topic();
		SharedKafka broker = SharedKafka.instance();
		try (KafkaTransport producer = new KafkaTransport(Map.of("bootstrap.servers", broker.bootstrap()));
				Database database = Database.start(Store.H2_FILE, this.directory)) {
			broker.createTopic(topic, PARTITIONS);
			if (row.protocol().equals("consumer")) {
				shortSessions(broker, topic);
			}
			database.execute("CREATE TABLE processed (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "
					+ "life INT NOT NULL, msg_id BIGINT NOT NULL, queue_id INT NOT NULL, msg_offset BIGINT NOT NULL)");
			// Half before the first life, the rest in steps between lives: every kill meets a backlog.
			send(producer, topic, 0, total / 2);
			List<Crash> crashes = new ArrayList<>();
			int sent = total / 2;
			for (int life = 0; life <= kills; life++) {
				int upTo = total / 2 + (int) ((long) (total - total / 2) * (life + 1) / (kills + 1));
				send(producer, topic, sent, upTo);
				sent = upTo;
				ChildProcess consumer = CrashLoopTests
					.startConsumer(consumerProperties(database, broker, row, life, life == kills));
				try {
					if (life == kills) {
						finish(database, broker, consumer, topic);
					}
					else {
						crashes.add(killAtRandom(database, broker, consumer, topic, life, random));
					}
				}
				finally {
					consumer.kill(); // a no-op after a kill or stop; ends the process when the test failed
				}
			}
			KafkaRows counted;
			try (HikariDataSource pool = database.pool()) {
				counted = KafkaRows.count(pool, broker.endOffsets(topic, PARTITIONS));
			}
			long lost = total - counted.ids();
			long duplicates = counted.duplicates();
			long repeatsWithinALife = counted.repeatsWithinALife();
			long uncommittedAtKills = crashes.stream().mapToLong(Crash::processedUncommitted).sum();
			System.out.printf("KafkaCrashLoopTests (" + row.protocol() + "): %d messages (stored twice by the producer %d), %d kills (%d during start-up), lost %d, duplicates %d"
					+ " (processed but uncommitted at the kills %d, largest per kill %d, largest bound per kill %d;"
					+ " kills over the JDBC settings window of %d: %d), largest reported commit lag %d%n", total,
					counted.storedTwice(), kills,
					crashes.stream().filter((crash) -> !crash.started()).count(), lost, duplicates, uncommittedAtKills,
					crashes.stream().mapToLong(Crash::processedUncommitted).max().orElse(0),
					crashes.stream().mapToLong(KafkaCrashLoopTests::bound).max().orElse(0), CrashLoopTests.WINDOW_BOUND,
					crashes.stream().filter((crash) -> crash.processedUncommitted() > CrashLoopTests.WINDOW_BOUND).count(),
					crashes.stream().mapToLong(Crash::maxReportedLag).max().orElse(0));
			String run = row.protocol() + " protocol, seed " + seed + ", crashes " + crashes;
			assertThat(lost).as("messages never processed (%s)", run).isZero();
			assertThat(counted.unprocessed()).as("records of the topic never processed (%s)", run).isZero();
			assertThat(broker.uncommitted(topic, topic, PARTITIONS))
				.as("partitions not committed to their end (%s)", run)
				.isEmpty();
			assertThat(crashes).as("crashes (%s)", run)
				.allSatisfy((crash) -> assertThat(crash.processedUncommitted()).isLessThanOrEqualTo(bound(crash)))
				.anySatisfy((crash) -> assertThat(crash.processedInLife()).isPositive());
			assertThat(duplicates).as("duplicates are at most the messages processed but not committed at a kill, plus "
					+ "the repeats within a life (%d) (%s)", repeatsWithinALife, run)
				.isLessThanOrEqualTo(uncommittedAtKills + repeatsWithinALife);
		}
	}

	/**
	 * A killed static member of the consumer protocol keeps its instance id until its session ends,
	 * and the next life is refused until then: 2 s (the broker's floor here) rather than its 10 s.
	 */
	private static void shortSessions(SharedKafka broker, String group) throws Exception {
		try (Admin admin = Admin.create(broker.clientProperties())) {
			admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
					List.of(new AlterConfigOp(new ConfigEntry("consumer.session.timeout.ms", "2000"),
							AlterConfigOp.OpType.SET))))
				.all()
				.get(30, TimeUnit.SECONDS);
		}
	}

	private static List<String> consumerProperties(Database database, SharedKafka broker, Row row, int life,
			boolean last) {
		List<String> properties = new ArrayList<>(database.dataSourceProperties(last));
		properties.addAll(List.of("crash.topic=" + row.topic(), "batch-consumer.kafka.group-protocol=" + row.protocol()));
		properties.addAll(List.of("spring.datasource.hikari.maximum-pool-size=6", "spring.jmx.enabled=false", "crash.life=" + life,
				"batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=" + broker.bootstrap(),
				"spring.kafka.consumer.properties.group.instance.id=crash-consumer",
				"spring.kafka.consumer.properties.session.timeout.ms=6000",
				"spring.kafka.consumer.properties.heartbeat.interval.ms=1000", "batch-consumer.group=" + row.topic(),
				"batch-consumer.thread-size=4", "batch-consumer.consumer-batch-size=10",
				"batch-consumer.pull-batch-size=" + PULL_BATCH,
				"batch-consumer.flow-control.pull-threshold-for-queue=" + MAX_SPAN,
				"batch-consumer.flow-control.max-span=" + MAX_SPAN, "batch-consumer.commit.interval=100ms",
				"batch-consumer.shutdown-timeout=10s"));
		return properties;
	}

	/** Produces the messages with ids {@code from} (inclusive) to {@code to} (exclusive), keyed, to {@code crash}. */
	static void send(KafkaTransport transport, int from, int to) {
		send(transport, CrashLoopApplication.TOPIC, from, to);
	}

	private static void send(KafkaTransport transport, String topic, int from, int to) {
		for (int first = from; first < to; first += 500) {
			List<OutgoingMessage> batch = IntStream.range(first, Math.min(first + 500, to))
				.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 64), String.valueOf(id)))
				.toList();
			assertThat(transport.producer().sendBatch(topic, batch)).allMatch(SendResult::isStored);
		}
	}

	private static Crash killAtRandom(Database database, SharedKafka broker, ChildProcess consumer, String topic,
			int life, Random random) throws Exception {
		// The first life is always killed while it works: at least one kill meets work in flight.
		boolean started = consumer.killAtRandom(random, life > 0 && random.nextInt(4) == 0, Duration.ofMillis(2500));
		long lag = consumer.lastCommitLag();
		long maxLag = consumer.maxCommitLag();
		Map<Integer, Long> committed = broker.committed(topic, topic);
		try (HikariDataSource pool = database.pool()) {
			long processed = Database.count(pool, "SELECT COUNT(*) FROM processed WHERE life = " + life);
			long uncommitted = 0;
			for (int partition = 0; partition < PARTITIONS; partition++) {
				uncommitted += Database.count(pool, "SELECT COUNT(*) FROM processed WHERE life = " + life
						+ " AND queue_id = " + partition + " AND msg_offset >= " + committed.getOrDefault(partition, 0L));
			}
			return new Crash(life, started, processed, uncommitted, lag, maxLag);
		}
	}

	private static void finish(Database database, SharedKafka broker, ChildProcess consumer, String topic)
			throws InterruptedException {
		consumer.awaitReady(Duration.ofMinutes(2));
		try (HikariDataSource pool = database.sharedPool()) {
			await().atMost(Duration.ofMinutes(5))
				.pollInterval(Duration.ofMillis(500))
				.until(() -> KafkaRows.count(pool, broker.endOffsets(topic, PARTITIONS)).unprocessed() == 0
						&& broker.uncommitted(topic, topic, PARTITIONS).isEmpty());
		}
		consumer.stop();
	}

}

package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendOptions;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delayed sends on JDBC: a message sent with a 2 s delay waits in the schedule table, is not
 * delivered before 2 s and is delivered within 2 s + 1 s; a message sent at once after it on the
 * same key is delivered at once (the delayed one holds no queue back), and the schedule empties.
 */
@Tag("integration")
class JdbcDelayedSendTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aMessageSentWithATwoSecondDelayArrivesAfterTwoSecondsAndWithinThree(TestDatabases.Kind kind) {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 8);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			Map<String, Long> arrivals = new ConcurrentHashMap<>();
			ContainerOptions options = ContainerOptions.builder("later").topics("later").group("later")
				.ordering(Ordering.KEY).commitInterval(Duration.ofMillis(20)).build();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
				for (Message<byte[]> message : slice) {
					arrivals.put(new String(message.payload(), StandardCharsets.UTF_8), System.currentTimeMillis());
				}
				return BatchResult.success();
			}, transport.deadLetterSink(options));
			container.start();
			try {
				long sentAt = System.currentTimeMillis();
				List<SendResult> delayed = transport.producer().sendBatch("later",
						List.of(OutgoingMessage.builder().key("k").tag("reminder").payload("delayed").build()),
						SendOptions.delay(Duration.ofSeconds(2)));
				assertThat(delayed).allMatch(SendResult::isStored);
				assertThat(transport.scheduledMessages()).isEqualTo(1);
				assertThat(transport.producer().sendBatch("later", List.of(OutgoingMessage.of("k", "now"))))
					.allMatch(SendResult::isStored);
				await().atMost(Duration.ofSeconds(5)).until(() -> arrivals.containsKey("now"));
				assertThat(arrivals.get("now") - sentAt).as("the message sent at once").isLessThan(2000);
				await().atMost(Duration.ofSeconds(10)).until(() -> arrivals.containsKey("delayed"));
				long lateness = arrivals.get("delayed") - sentAt;
				assertThat(lateness).as("delayed message arrival after send, ms").isGreaterThanOrEqualTo(2000)
					.isLessThan(3000);
				assertThat(transport.scheduledMessages()).isZero();
				System.out.printf("delayed send on %s: sent with 2 s delay, delivered after %d ms%n", kind, lateness);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}


	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void twoInstancesMovingTheScheduleAtOnceMoveEveryMessageExactlyOnce(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 12);
				JdbcTransport first = new JdbcTransport(dataSource, settings);
				JdbcTransport second = new JdbcTransport(dataSource, settings)) {
			int count = 3000;
			List<Object> batch = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				batch.add(OutgoingMessage.of("k" + (i % 17), Integer.toString(i)));
			}
			// Both instances' movers find the same 3,000 rows due at the same moment.
			Instant due = Instant.now().plusMillis(500);
			assertThat(first.producer().sendBatch("moved", batch.subList(0, count / 2), SendOptions.deliverAt(due)))
				.allMatch(SendResult::isStored);
			assertThat(second.producer().sendBatch("moved", batch.subList(count / 2, count), SendOptions.deliverAt(due)))
				.allMatch(SendResult::isStored);
			await().atMost(Duration.ofSeconds(30)).until(() -> first.scheduledMessages() == 0);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix()
					+ "message WHERE topic = 'moved'")).isEqualTo(count);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(DISTINCT payload) FROM " + settings.tablePrefix()
					+ "message WHERE topic = 'moved'")).isEqualTo(count);
		}
	}

	/**
	 * One key's delayed batch reaches its queue in the order it was sent, also when it is moved in
	 * several moves of {@code MOVE_BATCH} rows: every row of a batch has the same due and creation
	 * time, so the order rests on the row ids, which were random.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aDelayedBatchOfOneKeyReachesItsQueueInTheOrderItWasSent(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 8);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			int count = 1100;
			List<Object> batch = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				batch.add(OutgoingMessage.of("customer-1", Integer.toString(i)));
			}
			assertThat(transport.producer().sendBatch("ordered", batch, SendOptions.delay(Duration.ofMillis(200))))
				.allMatch(SendResult::isStored);
			await().atMost(Duration.ofSeconds(30)).until(() -> transport.scheduledMessages() == 0);
			List<String> queued = new ArrayList<>();
			try (var connection = dataSource.getConnection(); var statement = connection.createStatement();
					var rs = statement.executeQuery("SELECT payload FROM " + settings.tablePrefix()
							+ "message WHERE topic = 'ordered' ORDER BY queue_id, msg_offset")) {
				while (rs.next()) {
					queued.add(new String(rs.getBytes(1), StandardCharsets.UTF_8));
				}
			}
			assertThat(queued).as("one key's delayed batch, in queue order")
				.containsExactlyElementsOf(java.util.stream.IntStream.range(0, count).mapToObj(Integer::toString).toList());
		}
	}

	/**
	 * Producers schedule while the mover moves due messages out of the same table. On MariaDB the
	 * mover's {@code SELECT ... FOR UPDATE} locks gaps of the schedule's index that an insert of a
	 * send waits for, and InnoDB then chose the send as a deadlock's victim: the send was refused,
	 * though nothing of it had been stored and trying it again succeeds.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "MARIADB", "SQLITE" })
	void schedulingWhileTheMoverMovesIsNeverRefusedForADeadlock(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		int producers = 4;
		int batches = 100;
		int size = 20;
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 12);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			ExecutorService pool = Executors.newFixedThreadPool(producers);
			List<Future<List<SendResult>>> sends = new ArrayList<>();
			for (int p = 0; p < producers; p++) {
				int producer = p;
				sends.add(pool.submit(() -> {
					List<SendResult> results = new ArrayList<>();
					for (int b = 0; b < batches; b++) {
						List<Object> batch = new ArrayList<>();
						for (int i = 0; i < size; i++) {
							batch.add(OutgoingMessage.of("k" + i, producer + "-" + b + "-" + i));
						}
						// Due at once or soon: the mover takes rows while later ones are inserted.
						results.addAll(transport.producer().sendBatch("busy", batch,
								SendOptions.deliverAt(Instant.now().plusMillis(b % 3 * 20))));
					}
					return results;
				}));
			}
			List<SendResult> results = new ArrayList<>();
			for (Future<List<SendResult>> send : sends) {
				results.addAll(send.get(120, TimeUnit.SECONDS));
			}
			pool.shutdown();
			List<SendResult> refused = results.stream().filter((result) -> !result.isStored()).toList();
			assertThat(refused).as("sends refused (first: %s)",
					refused.isEmpty() ? "none" : refused.get(0).error()).isEmpty();
			int total = producers * batches * size;
			await().atMost(Duration.ofSeconds(60)).until(() -> transport.scheduledMessages() == 0);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(DISTINCT payload) FROM " + settings.tablePrefix()
					+ "message WHERE topic = 'busy'")).isEqualTo(total);
		}
	}

}

package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;
import io.batchconsumer.core.exactlyonce.JdbcDeliveryTransaction;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Dead letters in exactly-once mode on the Kafka transport (in-process broker, marks and the
 * listener's rows in an H2 file database): the dead-letter topic is outside the database
 * transaction, so the message is marked only after the dead letter was acknowledged.
 */
@Tag("integration")
class ExactlyOnceKafkaDeadLetterTests extends SharedKafkaTransportTests {

	private static final String POISON = "m-13";

	@TempDir
	Path dir;

	@BeforeAll
	static void createTopics() throws Exception {
		broker.createTopic("eo-dlq", 1);
		broker.createTopic("eo-dlq-twice", 1);
		broker.createTopic("eo-switch", 1);
		broker.createTopic("eo-late", 1);
	}

	/**
	 * The listener inserts a row per message and throws for {@value #POISON} after its row; after
	 * its second attempt it is dead-lettered. The first dead-letter write fails unacknowledged: no
	 * mark. The second is acknowledged before the mark exists; then the mark is written. The
	 * failing deliveries' rows are rolled back. A second container of the group, started after the
	 * group's offsets were set back to 0 (as after a stop between marking and committing), delivers
	 * none of the marked messages and writes no second dead letter.
	 */
	@Test
	void theDeadLetterIsWrittenOnceAndMarkedAfterItsAcknowledgementAndARestartDoesNotRepeatIt() throws Exception {
		try (HikariDataSource dataSource = h2("once")) {
			send("eo-dlq", 0, 20);
			Queue<String> delivered = new ConcurrentLinkedQueue<>();
			AtomicInteger calls = new AtomicInteger();
			List<Boolean> markedAtEntry = new ArrayList<>();
			List<Boolean> markedAtAck = new ArrayList<>();
			DeadLetterSink kafka = transport.deadLetterSink(options("eo-dlq", "first"));
			DeadLetterSink observing = (deadLetter) -> {
				long offset = deadLetter.message().offset();
				markedAtEntry.add(marked(dataSource, "eo-dlq", offset));
				if (calls.incrementAndGet() == 1) {
					throw new IllegalStateException("not acknowledged");
				}
				kafka.send(deadLetter);
				markedAtAck.add(marked(dataSource, "eo-dlq", offset));
			};
			BatchContainer first = container(dataSource, "eo-dlq", "first", delivered, observing);
			first.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource) == 19 && marks(dataSource) == 20);
			assertThat(first.stop()).isTrue();
			assertThat(rows(dataSource)).isEqualTo(19);
			assertThat(count(dataSource, "SELECT COUNT(*) FROM rows WHERE payload = '" + POISON + "'")).isZero();
			assertThat(delivered.stream().filter(POISON::equals)).hasSize(2);
			assertThat(markedAtEntry).as("marked before each dead-letter write").containsExactly(false, false);
			assertThat(markedAtAck).as("marked when the dead letter was acknowledged").containsExactly(false);
			assertThat(deadLetters("eo-dlq")).containsExactly(POISON);

			rewind("group-eo-dlq", "eo-dlq");
			delivered.clear();
			BatchContainer second = container(dataSource, "eo-dlq", "second", delivered,
					transport.deadLetterSink(options("eo-dlq", "second")));
			second.start();
			send("eo-dlq", 20, 21);
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource) == 20);
			assertThat(second.stop()).isTrue();
			assertThat(delivered).as("delivered after the restart").containsExactly("m-20");
			assertThat(deadLetters("eo-dlq")).containsExactly(POISON);
		}
	}

	/**
	 * The documented limit: when the process stops after the dead letter was acknowledged but
	 * before its mark (here the step between fails once), the message is dead-lettered again.
	 */
	@Test
	void aStopBetweenTheAcknowledgedDeadLetterAndItsMarkWritesTheDeadLetterTwice() throws Exception {
		try (HikariDataSource dataSource = h2("twice")) {
			send("eo-dlq-twice", 0, 20);
			AtomicInteger calls = new AtomicInteger();
			DeadLetterSink kafka = transport.deadLetterSink(options("eo-dlq-twice", "twice"));
			DeadLetterSink stopsBeforeTheMark = (deadLetter) -> {
				kafka.send(deadLetter);
				if (calls.incrementAndGet() == 1) {
					throw new IllegalStateException("stopped between the dead letter and its mark");
				}
			};
			BatchContainer container = container(dataSource, "eo-dlq-twice", "twice", new ConcurrentLinkedQueue<>(),
					stopsBeforeTheMark);
			container.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource) == 19 && marks(dataSource) == 20);
			assertThat(container.stop()).isTrue();
			assertThat(deadLetters("eo-dlq-twice")).containsExactly(POISON, POISON);
		}
	}

	private BatchContainer container(DataSource dataSource, String topic, String id, Queue<String> delivered,
			DeadLetterSink sink) {
		ContainerOptions options = options(topic, id);
		ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
				new CompletionTable("bc_"));
		return new BatchContainer(options, exactlyOnce.source(transport.createSource(options)),
				exactlyOnce.listener(rowWriter(delivered)), exactlyOnce.deadLetterSink(sink));
	}

	/**
	 * The retry topic is outside the marks' transaction: a kill between the hand-off and the mark
	 * would process the message twice, so the combination is refused, naming the option.
	 */
	@Test
	void theRetryQueueIsRefusedWithExactlyOnceNamingTheBlockingLimit() throws Exception {
		try (HikariDataSource dataSource = h2("retry")) {
			ContainerOptions options = KafkaTransportTests.options("eo-retry", "eo-dlq").ordering(Ordering.UNORDERED)
				.retryLevels("1m").retryBlockingLimit(Duration.ofSeconds(1)).build();
			ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
					new CompletionTable("retry_"));
			assertThatExceptionOfType(InvalidOptionException.class)
				.isThrownBy(() -> exactlyOnce.retryQueue(transport.retryQueue(options)))
				.satisfies((ex) -> assertThat(ex.option()).isEqualTo("retry.blocking-limit"))
				.withMessageContaining("processing=exactly-once");
		}
	}

	/**
	 * A service moves from its database to Kafka with the same group and the same database: the JDBC
	 * transport's marks of topic {@code eo-switch} partition 0 offsets 0-19 look like the Kafka
	 * topic's. Before, they finished every Kafka message without the listener (20 rows, expected 40).
	 */
	@Test
	void theMarksOfTheJdbcTransportNeverFinishAMessageOfKafka() throws Exception {
		try (HikariDataSource dataSource = h2("switch")) {
			Queue<String> delivered = new ConcurrentLinkedQueue<>();
			ContainerOptions jdbcOptions = KafkaTransportTests.options("switch-db", "eo-switch").group("invoicing")
				.build();
			try (JdbcTransport jdbc = new JdbcTransport(dataSource, JdbcSettings.defaults().withQueuesPerTopic(1)
				.withInitializeSchema(SchemaInitialization.ALWAYS))) {
				jdbc.producer().sendBatchOrThrow("eo-switch",
						java.util.stream.IntStream.range(0, 20).mapToObj((i) -> (Object) ("db-" + i)).toList());
				ExactlyOnce exactlyOnce = new ExactlyOnce(jdbcOptions, new JdbcDeliveryTransaction(dataSource),
						dataSource, new CompletionTable("bc_"));
				BatchContainer onDatabase = new BatchContainer(jdbcOptions,
						exactlyOnce.source(jdbc.createSource(jdbcOptions)), exactlyOnce.listener(rowWriter(delivered)),
						exactlyOnce.deadLetterSink(jdbc.deadLetterSink(jdbcOptions)));
				onDatabase.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource) == 20);
				assertThat(onDatabase.stop()).isTrue();
			}
			send("eo-switch", 20, 40); // offsets 0-19, none of them the poison
			ContainerOptions kafkaOptions = KafkaTransportTests.options("switch-kafka", "eo-switch").group("invoicing")
				.build();
			ExactlyOnce exactlyOnce = new ExactlyOnce(kafkaOptions, new JdbcDeliveryTransaction(dataSource), dataSource,
					new CompletionTable("bc_"));
			BatchContainer onKafka = new BatchContainer(kafkaOptions, exactlyOnce.source(transport.createSource(kafkaOptions)),
					exactlyOnce.listener(rowWriter(delivered)), exactlyOnce.deadLetterSink(transport.deadLetterSink(kafkaOptions)));
			onKafka.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource) == 40);
			}
			finally {
				assertThat(onKafka.stop()).isTrue();
			}
			assertThat(delivered).filteredOn((payload) -> payload.startsWith("m-")).hasSize(20);
			assertThat(markGroups(dataSource)).containsExactlyInAnyOrder("invoicing", "invoicing@" + kafkaOrigin());
		}
	}

	/**
	 * The Kafka consumer's own callback order: seek forward 10 → 20, deliver 20–29, commit 30
	 * asynchronously and poll no more, seek back to 10. Kafka runs the commit's callback inside the
	 * seek's {@code commitSync}. Before, that callback raised the floor of the seek's marks to 30, so
	 * 10–19 counted as marked and never reached the listener.
	 */
	@Test
	void aCommitCallbackKafkaRunsInsideTheSeeksCommitLeavesTheSeeksMarksAlone() throws Exception {
		send("eo-late", 0, 40);
		TopicPartition partition = new TopicPartition("eo-late", 0);
		try (HikariDataSource dataSource = h2("late")) {
			ContainerOptions options = options("eo-late", "late");
			ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
					new CompletionTable("bc_"));
			Queue<Long> delivered = new ConcurrentLinkedQueue<>();
			SliceListener listener = exactlyOnce.listener((slice) -> {
				slice.forEach((message) -> delivered.add(message.offset()));
				return null;
			});
			MessageSource source = exactlyOnce.source(transport.createSource(options));
			long[] epoch = { 0 };
			source.subscribe(List.of("eo-late"), new RebalanceListener() {

				@Override
				public void onAssigned(Collection<TopicPartition> partitions) {
					listener.epochStarted(partition, ++epoch[0]); // as the engine does
				}

				@Override
				public void onRevoked(Collection<TopicPartition> partitions) {
				}

			});
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> {
					source.poll(Duration.ofMillis(100));
					return epoch[0] == 1;
				});
				seek(source, listener, partition, 20, ++epoch[0]);
				listener.onSlice(raw(partition, 20, 30), epoch[0]);
				AtomicBoolean called = new AtomicBoolean();
				source.commitAsync(Map.of(partition, 30L), (offsets, failure) -> called.set(failure == null));
				seek(source, listener, partition, 10, ++epoch[0]);
				assertThat(called).as("Kafka ran the commit's callback inside the seek's commitSync").isTrue();
				delivered.clear();
				listener.onSlice(raw(partition, 10, 20), epoch[0]);
				assertThat(delivered).containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
			}
			finally {
				source.close();
			}
		}
	}

	/** As the engine seeks: the source, a new epoch, the position committed. */
	private static void seek(MessageSource source, SliceListener listener, TopicPartition partition, long offset,
			long epoch) {
		source.seek(partition, offset);
		listener.epochStarted(partition, epoch);
		source.commitSync(Map.of(partition, offset));
	}

	private static List<Message<byte[]>> raw(TopicPartition partition, long from, long to) {
		List<Message<byte[]>> messages = new ArrayList<>();
		for (long offset = from; offset < to; offset++) {
			messages.add(Message.raw(partition.topic(), partition.partition(), offset, null, new byte[0], null, 0));
		}
		return messages;
	}

	private static ContainerOptions options(String topic, String id) {
		return KafkaTransportTests.options(id, topic).consumerBatchSize(1).threadSize(2).retryMaxAttempts(2).build();
	}

	/** Inserts one row per message in the delivery's transaction; throws for the poison after its row. */
	private static SliceListener rowWriter(Queue<String> delivered) {
		return (slice) -> {
			Connection connection = JdbcDeliveryTransaction.currentConnection();
			try (PreparedStatement insert = connection.prepareStatement("INSERT INTO rows (payload) VALUES (?)")) {
				for (Message<byte[]> message : slice) {
					String payload = new String(message.payload(), StandardCharsets.UTF_8);
					delivered.add(payload);
					insert.setString(1, payload);
					insert.executeUpdate();
					if (payload.equals(POISON)) {
						throw new IllegalArgumentException("poison");
					}
				}
			}
			return null;
		};
	}

	private HikariDataSource h2(String name) throws SQLException {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl("jdbc:h2:file:" + this.dir.resolve(name).toAbsolutePath() + ";WRITE_DELAY=0");
		dataSource.setMaximumPoolSize(6);
		new CompletionTable("bc_").create(dataSource);
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE rows (payload VARCHAR(100) NOT NULL)");
		}
		return dataSource;
	}

	private static void send(String topic, int from, int to) {
		List<OutgoingMessage> batch = new ArrayList<>();
		for (int i = from; i < to; i++) {
			batch.add(new OutgoingMessage("k-" + i, Map.of(), "m-" + i));
		}
		transport.producer().sendBatchOrThrow(topic, batch);
	}

	/** The payloads on the dead-letter topic: waits a little for a second one, so that one more shows. */
	private static List<String> deadLetters(String topic) {
		return broker.readAll(DeadLetterTopics.of(topic), 3, Duration.ofSeconds(2)).stream()
			.map((record) -> new String(record.value(), StandardCharsets.UTF_8))
			.toList();
	}

	/** Sets the group's committed position back to 0, as if it had stopped before committing. */
	private static void rewind(String group, String topic) throws Exception {
		try (Admin admin = Admin.create(broker.clientProperties())) {
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
				admin.alterConsumerGroupOffsets(group,
						Map.of(new org.apache.kafka.common.TopicPartition(topic, 0), new OffsetAndMetadata(0)))
					.all().get(10, TimeUnit.SECONDS);
				return true;
			});
		}
		assertThat(broker.committed(group, topic)).containsEntry(0, 0L);
	}

	private static boolean marked(DataSource dataSource, String topic, long offset) {
		return new CompletionTable("bc_")
			.marks(dataSource, "group-" + topic + "@" + kafkaOrigin(), new TopicPartition(topic, 0))
			.contains(offset);
	}

	/** Marks of a Kafka source are stored under the group followed by {@code @kafka:<cluster id>}. */
	private static String kafkaOrigin() {
		try (Admin admin = Admin.create(broker.clientProperties())) {
			return "kafka:" + admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static List<String> markGroups(DataSource dataSource) throws SQLException {
		List<String> groups = new ArrayList<>();
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT DISTINCT group_id FROM bc_completions")) {
			while (rs.next()) {
				groups.add(rs.getString(1));
			}
		}
		return groups;
	}

	private static int rows(DataSource dataSource) {
		return count(dataSource, "SELECT COUNT(*) FROM rows");
	}

	private static long marks(DataSource dataSource) {
		return new CompletionTable("bc_").markCount(dataSource);
	}

	private static int count(DataSource dataSource, String sql) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(sql)) {
			rs.next();
			return rs.getInt(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}

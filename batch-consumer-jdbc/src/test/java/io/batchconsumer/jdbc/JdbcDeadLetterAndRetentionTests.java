package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Dead letters keep everything about the failed message, and retention deletes only what every
 * consumer of a queue committed and what is older than the retention.
 */
@Tag("integration")
class JdbcDeadLetterAndRetentionTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void storesADeadLetterWithEveryFieldAndCommitsPastIt(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			transport.producer().sendBatch("mail", List.of(
					new OutgoingMessage("user-1", Map.of("trace", "abc", "x", "y=z"), new byte[] { 1, 2, 3 })));
			deadLetterTheFirst(transport, "mail", "senders", new IllegalStateException("smtp down " + "!".repeat(2000)));

			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT group_id, topic, queue_id, msg_offset, msg_key, headers,"
							+ " payload, attempts, error_class, error_message, created_at FROM " + settings.tablePrefix()
							+ "dead_letter")) {
				assertThat(rs.next()).isTrue();
				assertThat(rs.getString("group_id")).isEqualTo("senders");
				assertThat(rs.getString("topic")).isEqualTo("mail");
				assertThat(rs.getInt("queue_id")).isZero();
				assertThat(rs.getLong("msg_offset")).isZero();
				assertThat(rs.getString("msg_key")).isEqualTo("user-1");
				assertThat(HeaderCodec.decode(rs.getString("headers"))).isEqualTo(Map.of("trace", "abc", "x", "y=z"));
				assertThat(rs.getBytes("payload")).containsExactly(1, 2, 3);
				assertThat(rs.getInt("attempts")).isEqualTo(2);
				assertThat(rs.getString("error_class")).isEqualTo(IllegalStateException.class.getName());
				assertThat(rs.getString("error_message")).startsWith("smtp down").hasSize(1000);
				assertThat(rs.getLong("created_at")).isPositive();
				assertThat(rs.next()).isFalse();
			}
		}
	}

	/**
	 * An exception's message is any text: it may quote a binary payload (PostgreSQL's text cannot hold
	 * U+0000) or be in any script (a MariaDB whose server default is latin1, as the test server's,
	 * made latin1 tables that refused 日本). Either way the dead-letter write was refused every time,
	 * so the message never finished and its queue stopped.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void anErrorMessageOfAnyTextIsStoredAndCommittedPast(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			transport.producer().sendBatch("records", List.of(OutgoingMessage.of("k", new byte[] { 'a', 0, 'b' })));
			deadLetterTheFirst(transport, "records", "parsers",
					new IllegalArgumentException("cannot parse 'a\u0000b' \u65e5\u672c"));
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT error_message, payload FROM " + settings.tablePrefix()
							+ "dead_letter")) {
				assertThat(rs.next()).isTrue();
				assertThat(rs.getString("error_message")).as("U+0000 stored as \\0").isEqualTo("cannot parse 'a\\0b' \u65e5\u672c");
				assertThat(rs.getBytes("payload")).containsExactly('a', 0, 'b');
			}
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void retentionDeletesOnlyOldMessagesEveryGroupCommitted(TestDatabases.Kind kind) {
		MutableClock clock = new MutableClock();
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1).withRetention(Duration.ofDays(1));
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings, (p) -> new byte[0], clock)) {
			send(transport, "events", 2500);
			send(transport, "unread", 10);
			MessageSource fast = subscribe(transport, "fast");
			MessageSource slow = subscribe(transport, "slow");
			clock.advance(Duration.ofDays(1).plusMinutes(1));
			send(transport, "events", 10); // offsets 2500..2509, young
			assertThat(transport.purgeExpired()).as("nothing is below every group's position yet").isZero();

			fast.commitSync(Map.of(new TopicPartition("events", 0), 2510L));
			slow.commitSync(Map.of(new TopicPartition("events", 0), 1700L));
			assertThat(transport.purgeExpired()).isEqualTo(1700);
			assertThat(offsets(dataSource, settings, "events")).containsExactly(1700, 2509);

			slow.commitSync(Map.of(new TopicPartition("events", 0), 2510L));
			assertThat(transport.purgeExpired()).as("the young ones stay").isEqualTo(800);
			assertThat(offsets(dataSource, settings, "events")).containsExactly(2500, 2509);
			assertThat(offsets(dataSource, settings, "unread")).as("a topic nobody consumes keeps its messages")
				.containsExactly(0, 9);
			fast.close();
			slow.close();
		}
	}

	private static MessageSource subscribe(JdbcTransport transport, String group) {
		ContainerOptions options = ContainerOptions.builder(group).topics("events").group(group).build();
		MessageSource source = transport.createSource(options);
		source.subscribe(List.of("events"), new JdbcMessageSourceTests.Events());
		source.poll(Duration.ZERO);
		return source;
	}

	/**
	 * Runs a container whose listener always fails with {@code failure}, two attempts each, until the
	 * queue's first message is committed past (its dead letter stored), then stops it.
	 */
	private static void deadLetterTheFirst(JdbcTransport transport, String topic, String group,
			RuntimeException failure) {
		ContainerOptions options = ContainerOptions.builder(group).topics(topic).group(group).retryMaxAttempts(2)
			.retryBackoff(Duration.ofMillis(10)).commitInterval(Duration.ZERO).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			throw failure;
		}, transport.deadLetterSink(options));
		container.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().partitions().stream()
			.anyMatch((p) -> p.committedOffset() == 1));
		assertThat(container.stop()).isTrue();
	}

	private static void send(JdbcTransport transport, String topic, int count) {
		List<Object> batch = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			batch.add("m" + i);
		}
		assertThat(transport.producer().sendBatch(topic, batch)).allMatch(SendResult::isStored);
	}

	private static List<Integer> offsets(HikariDataSource dataSource, JdbcSettings settings, String topic) {
		String where = " FROM " + settings.tablePrefix() + "message WHERE topic = '" + topic + "'";
		return List.of(TestDatabases.count(dataSource, "SELECT MIN(msg_offset)" + where),
				TestDatabases.count(dataSource, "SELECT MAX(msg_offset)" + where));
	}

}

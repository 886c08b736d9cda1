package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tag subscriptions and message filters on the JDBC transport: the listener sees exactly the
 * selected messages, every queue is committed to its end (a filtered run at the tail too), the
 * filtered counter counts the rest, and no filtered range is taken for an offset gap.
 */
@Tag("integration")
class JdbcTagFilterTests {

	private static final String[] TAGS = { "created", "paid", "shipped", null };

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void listenerSeesExactlyTheSelectedTagsAndEveryQueueIsCommittedToItsEnd(TestDatabases.Kind kind) {
		int total = 2000;
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			List<Object> batch = new ArrayList<>();
			Set<Integer> expected = ConcurrentHashMap.newKeySet();
			for (int i = 0; i < total; i++) {
				String tag = TAGS[i % TAGS.length];
				batch.add(OutgoingMessage.builder().key("k" + (i % 37)).tag(tag).payload(Integer.toString(i)).build());
				// created || paid, and then the filter drops multiples of 10
				if (("created".equals(tag) || "paid".equals(tag)) && i % 10 != 0) {
					expected.add(i);
				}
			}
			// The tail of every queue is of a tag nobody subscribed to: the watermark must pass it.
			for (int i = total; i < total + 40; i++) {
				batch.add(OutgoingMessage.builder().key("k" + (i % 37)).tag("shipped").payload(Integer.toString(i)).build());
			}
			List<SendResult> sent = transport.producer().sendBatch("orders", batch);
			assertThat(sent).allMatch(SendResult::isStored);
			Set<Integer> seen = ConcurrentHashMap.newKeySet();
			AtomicInteger deliveries = new AtomicInteger();
			AtomicInteger emptyPayloads = new AtomicInteger();
			ContainerOptions options = ContainerOptions.builder("tags").topics("orders").group("billing")
				.threadSize(4).consumerBatchSize(10).ordering(Ordering.KEY).tags("created || paid")
				.commitInterval(Duration.ofMillis(50)).build();
			MessageFilter notTenth = (message) -> value(message) % 10 != 0;
			BatchContainer container = BatchContainer.builder(options, transport.createSource(options), (slice) -> {
				for (Message<byte[]> message : slice) {
					if (message.payload().length == 0) {
						emptyPayloads.incrementAndGet();
					}
					seen.add(value(message));
					deliveries.incrementAndGet();
				}
				return BatchResult.success();
			}, transport.deadLetterSink(options)).filter(notTenth).build();
			container.start();
			Map<Integer, Long> ends = new ConcurrentHashMap<>();
			for (SendResult result : sent) {
				ends.merge(result.partition(), result.offset() + 1, Math::max);
			}
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				List<PartitionSnapshot> partitions = container.stats().partitions();
				assertThat(partitions).hasSize(ends.size());
				for (PartitionSnapshot partition : partitions) {
					assertThat(partition.committedOffset()).as("committed offset of %s", partition.partition())
						.isEqualTo(ends.get(partition.partition().partition()));
				}
			});
			assertThat(container.stop()).isTrue();
			assertThat(seen).isEqualTo(expected);
			assertThat(deliveries.get()).isEqualTo(expected.size());
			assertThat(emptyPayloads.get()).isZero();
			assertThat(container.stats().messagesFiltered()).isEqualTo(total + 40 - expected.size());
			assertThat(container.stats().messagesSucceeded()).isEqualTo(expected.size());
			assertThat(transport.offsetGaps()).isZero();
		}
	}

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void tagColumnIsAddedToAMessageTableOfAnOlderVersion(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			try (JdbcTransport first = new JdbcTransport(dataSource, settings)) {
				first.producer().sendBatch("old", List.of("before"));
			}
			try (var connection = dataSource.getConnection(); var statement = connection.createStatement()) {
				statement.execute("ALTER TABLE " + settings.tablePrefix() + "message DROP COLUMN tag");
			}
			try (JdbcTransport second = new JdbcTransport(dataSource, settings)) {
				assertThat(second.producer().sendBatch("old", List.of(OutgoingMessage.builder().tag("paid")
					.payload("after").build()))).allMatch(SendResult::isStored);
				assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix()
						+ "message WHERE tag = 'paid'")).isEqualTo(1);
			}
		}
	}

	private static int value(Message<byte[]> message) {
		return Integer.parseInt(new String(message.payload(), StandardCharsets.UTF_8));
	}

}

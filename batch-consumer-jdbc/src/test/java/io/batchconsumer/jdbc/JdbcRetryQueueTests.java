package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.spi.RetryQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Retries that do not hold a thread, on JDBC: a failed message whose back-off is above
 * {@code retry.blocking-limit} goes to the schedule table and comes back through the container's
 * retry topic with its attempt and origin in headers, then goes to the dead letter; the original
 * queue is committed past it at once; and a listener failing some messages with a one-minute
 * back-off keeps the throughput of the others.
 */
@Tag("integration")
class JdbcRetryQueueTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void retriesComeBackWhenDueWithTheirAttemptAndOriginThenDeadLetterWhileTheQueueIsCommitted(TestDatabases.Kind kind) {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			List<SendResult> sent = transport.producer().sendBatch("orders", orders(200, 20));
			Map<String, List<Message<byte[]>>> bad = new ConcurrentHashMap<>();
			Set<String> good = ConcurrentHashMap.newKeySet();
			ContainerOptions options = options("retrying").retryLevels("700ms").build();
			BatchContainer container = container(transport, options, (slice) -> {
				List<Message<byte[]>> failed = new ArrayList<>();
				for (Message<byte[]> message : slice) {
					String text = text(message);
					if (text.startsWith("bad")) {
						bad.computeIfAbsent(text, (t) -> new CopyOnWriteArrayList<>()).add(message);
						failed.add(message);
					}
					else {
						good.add(text);
					}
				}
				return BatchResult.failed(failed);
			});
			container.start();
			try {
				Map<Integer, Long> ends = new ConcurrentHashMap<>();
				sent.forEach((result) -> ends.merge(result.partition(), result.offset() + 1, Math::max));
				// The original queues are committed to their end while the bad messages wait for a retry.
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(committedOf(container, "orders"))
					.isEqualTo(ends));
				assertThat(good).hasSize(180);
				await().atMost(Duration.ofSeconds(30))
					.until(() -> container.stats().messagesDeadLettered() == 20);
				assertThat(bad).hasSize(20);
				for (List<Message<byte[]>> deliveries : bad.values()) {
					assertThat(deliveries).extracting(Message::deliveryAttempt).containsExactly(1, 2, 3);
					Message<byte[]> first = deliveries.get(0);
					for (Message<byte[]> retry : deliveries.subList(1, 3)) {
						assertThat(retry.topic()).isEqualTo("bc.retry.billing.retrying");
						assertThat(retry.headers()).containsEntry(RetryQueue.ORIGINAL_TOPIC, "orders")
							.containsEntry(RetryQueue.ORIGINAL_PARTITION, Integer.toString(first.partition()))
							.containsEntry(RetryQueue.ORIGINAL_OFFSET, Long.toString(first.offset()));
						// each retry waited its 700 ms back-off in the schedule, not on a worker
						assertThat(retry.timestamp()).isGreaterThanOrEqualTo(first.timestamp() + 700);
					}
				}
				assertThat(transport.scheduledMessages()).isZero();
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aDeadLetterAfterTheRetryQueueNamesTheOriginalTopicPartitionAndOffsetAndIsReplayedThere(
			TestDatabases.Kind kind) {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			List<SendResult> sent = transport.producer().sendBatch("orders", orders(6, 6));
			List<Message<byte[]>> replayed = new CopyOnWriteArrayList<>();
			ContainerOptions options = options("origin").retryMaxAttempts(2).retryLevels("150ms").build();
			BatchContainer container = container(transport, options, (slice) -> {
				List<Message<byte[]>> failed = new ArrayList<>();
				for (Message<byte[]> message : slice) {
					if (message.headers().containsKey(JdbcDeadLetters.REPLAYED_FROM)) {
						replayed.add(message);
					}
					else {
						failed.add(message);
					}
				}
				return BatchResult.failed(failed);
			});
			container.start();
			try {
				await().atMost(Duration.ofSeconds(15)).until(() -> container.stats().messagesDeadLettered() == 6);
				DeadLetterPage page = transport.storedDeadLetters().list("billing", List.of("orders"), 0, 20);
				assertThat(page.total()).isEqualTo(6);
				assertThat(page.deadLetters()).extracting((d) -> d.partition() + "@" + d.offset())
					.containsExactlyInAnyOrderElementsOf(sent.stream().map((r) -> r.partition() + "@" + r.offset()).toList());
				for (StoredDeadLetter deadLetter : page.deadLetters()) {
					assertThat(deadLetter.topic()).isEqualTo("orders");
					assertThat(deadLetter.attempts()).isEqualTo(2);
					assertThat(deadLetter.headers()).doesNotContainKeys(RetryQueue.ATTEMPT, RetryQueue.ORIGINAL_TOPIC);
				}
				List<ReplayResult> results = transport.storedDeadLetters()
					.replay("billing", List.of("orders"), page.deadLetters().stream().map(StoredDeadLetter::id).toList());
				assertThat(results).extracting(ReplayResult::outcome).containsOnly(ReplayResult.Outcome.REPLAYED);
				assertThat(results).extracting((r) -> r.sent().topic()).containsOnly("orders");
				await().atMost(Duration.ofSeconds(10)).until(() -> replayed.size() == 6);
				// on the original topic, as a first delivery (not the attempt it was dead-lettered with)
				assertThat(replayed).extracting(Message::topic).containsOnly("orders");
				assertThat(replayed).extracting(Message::deliveryAttempt).containsOnly(1);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	@Test
	void aOneMinuteBackOffOfSomeMessagesKeepsTheThroughputOfTheOthers() throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			transport.producer().sendBatch("clean", orders(20_000, 0));
			transport.producer().sendBatch("mixed", orders(20_000, 2_000));
			long clean = goodProcessedIn(transport, "clean", Duration.ofSeconds(3));
			long mixed = goodProcessedIn(transport, "mixed", Duration.ofSeconds(3));
			double ratio = (double) mixed / clean;
			System.out.printf("retry queue throughput: %d good messages in 3 s without failures, %d with 1 in 10 "
					+ "failing with a 1-minute back-off; ratio %.2f%n", clean, mixed, ratio);
			assertThat(ratio).isGreaterThanOrEqualTo(0.5);
		}
	}

	@Test
	void partitionOrderingWithABackOffAboveTheBlockingLimitIsRefusedNamingTheProperties() throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			ContainerOptions options = options("ordered").ordering(Ordering.PARTITION).retryLevels("1m").build();
			assertThatThrownBy(() -> container(transport, options, (slice) -> BatchResult.success()))
				.isInstanceOf(InvalidOptionException.class)
				.hasMessageContaining("retry.blocking-limit")
				.hasMessageContaining("later messages of their partition would pass them")
				.hasMessageContaining("ordering=partition")
				.hasMessageContaining("ordering=unordered");
		}
	}

	private static long goodProcessedIn(JdbcTransport transport, String topic, Duration window) throws Exception {
		AtomicLong good = new AtomicLong();
		ContainerOptions options = options(topic).topics(topic).retryLevels("1m").build();
		BatchContainer container = container(transport, options, (slice) -> {
			List<Message<byte[]>> failed = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				if (text(message).startsWith("bad")) {
					failed.add(message);
				}
				else {
					Thread.sleep(1); // the work of one message
					good.incrementAndGet();
				}
			}
			return BatchResult.failed(failed);
		});
		container.start();
		try {
			await().atMost(Duration.ofSeconds(20)).until(() -> good.get() > 0);
			long start = good.get();
			Thread.sleep(window.toMillis()); // the measuring window, not a synchronisation
			return good.get() - start;
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	private static ContainerOptions.Builder options(String id) {
		return ContainerOptions.builder(id).topics("orders").group("billing").threadSize(4).consumerBatchSize(10)
			.ordering(Ordering.UNORDERED).retryMaxAttempts(3).retryBlockingLimit(Duration.ofMillis(100))
			.commitInterval(Duration.ofMillis(20)).shutdownTimeout(Duration.ofSeconds(5));
	}

	private static BatchContainer container(JdbcTransport transport, ContainerOptions options, SliceListener listener) {
		return BatchContainer.builder(options, transport.createSource(options), listener, transport.deadLetterSink(options))
				.retryQueue(transport.retryQueue(options))
				.build();
	}

	private static List<Object> orders(int count, int bad) {
		List<Object> messages = new ArrayList<>(count);
		int every = (bad > 0) ? count / bad : Integer.MAX_VALUE;
		for (int i = 0; i < count; i++) {
			String text = (i % every == every - 1) ? "bad-" + i : "good-" + i;
			messages.add(OutgoingMessage.of(null, text));
		}
		return messages;
	}

	private static Map<Integer, Long> committedOf(BatchContainer container, String topic) {
		Map<Integer, Long> committed = new java.util.HashMap<>();
		for (PartitionSnapshot partition : container.stats().partitions()) {
			if (partition.partition().topic().equals(topic)) {
				committed.put(partition.partition().partition(), partition.committedOffset());
			}
		}
		return committed;
	}

	private static String text(Message<byte[]> message) {
		return new String(message.payload(), StandardCharsets.UTF_8);
	}

}

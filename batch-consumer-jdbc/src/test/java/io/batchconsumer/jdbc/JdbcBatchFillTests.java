package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batches by count, time and bytes, and the rate limit, against H2: a list listener gets at least
 * {@code consumer-batch-min-size} messages a call while the wait has not run out (the rest waits in
 * the buffer without a thread), never more bytes than {@code consumer-batch-max-bytes}, and a
 * rate-limited listener is held back until the limit is lifted at runtime.
 */
@Tag("integration")
class JdbcBatchFillTests {

	private static final TestDatabases databases = new TestDatabases();

	private final List<List<Message<byte[]>>> calls = new CopyOnWriteArrayList<>();

	@TempDir
	Path dir;

	@Test
	void aListListenerGetsFullBatchesWhileTheRestWaitsWithoutAThread() {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 6);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			BatchContainer container = start(transport, (options) -> options.consumerBatchSize(50)
				.consumerBatchMinSize(50).consumerBatchMaxWait(Duration.ofHours(1)));
			try {
				int queue = send(transport, 30);
				await().atMost(Duration.ofSeconds(20)).until(() -> container.stats().backlog() == 30);
				assertThat(this.calls).as("30 wait for 50").isEmpty();
				assertThat(container.stats().busyThreads()).isZero();

				send(transport, 40);
				await().atMost(Duration.ofSeconds(20)).until(() -> committed(container, queue) == 50);
				await().atMost(Duration.ofSeconds(20)).until(() -> container.stats().backlog() == 20);

				send(transport, 30);
				await().atMost(Duration.ofSeconds(20)).until(() -> committed(container, queue) == 100);
				assertThat(this.calls).extracting(List::size).containsExactly(50, 50);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	@Test
	void noCallHoldsMoreBytesThanTheBound() {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 6);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			int queue = send(transport, 200);
			BatchContainer container = start(transport,
					(options) -> options.consumerBatchSize(50).consumerBatchMaxBytes(1024));
			try {
				await().atMost(Duration.ofSeconds(20)).until(() -> committed(container, queue) == 200);
				assertThat(this.calls).allSatisfy((call) -> assertThat(call.stream()
					.mapToInt(Message::serializedSize).sum()).isLessThanOrEqualTo(1024));
				assertThat(this.calls.stream().mapToInt(List::size).sum()).isEqualTo(200);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	@Test
	void aRateLimitedListenerIsHeldBackUntilTheLimitIsLifted() throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 6);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			int queue = send(transport, 100);
			BatchContainer container = start(transport, (options) -> options.rateLimit(1));
			try {
				await().atMost(Duration.ofSeconds(20)).until(() -> container.stats().rateLimitHolds() > 0
						&& container.stats().backlog() > 50);
				assertThat(committed(container, queue)).isLessThan(50);

				container.tune(Map.of("rate-limit", "0")).get(10, TimeUnit.SECONDS);
				await().atMost(Duration.ofSeconds(20)).until(() -> committed(container, queue) == 100);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	private BatchContainer start(JdbcTransport transport, UnaryOperator<ContainerOptions.Builder> customizer) {
		ContainerOptions options = customizer.apply(ContainerOptions.builder("filled").topics("bulk").group("bulk")
			.threadSize(2).ordering(Ordering.UNORDERED).commitInterval(Duration.ofMillis(20))
			.pollTimeout(Duration.ofMillis(50))).build();
		BatchContainer container = BatchContainer.builder(options, transport.createSource(options), (slice) -> {
			this.calls.add(List.copyOf(slice));
			return BatchResult.success();
		}, transport.deadLetterSink(options)).build();
		container.start();
		return container;
	}

	/** Sends {@code count} messages of one key (one queue); returns the queue. */
	private static int send(JdbcTransport transport, int count) {
		List<Object> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(OutgoingMessage.builder().key("a").payload("row-" + i + "-" + "x".repeat(60)).build());
		}
		return transport.producer().sendBatch("bulk", messages).get(0).partition();
	}

	private static long committed(BatchContainer container, int queue) {
		return container.stats().partitions().stream().filter((p) -> p.partition().partition() == queue)
			.mapToLong(PartitionSnapshot::committedOffset).findFirst().orElse(-1);
	}

}

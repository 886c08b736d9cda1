package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The consumer delay against a clock the test moves: a message reaches the listener only once
 * the container's clock passed its timestamp plus the delay; a partition whose head is not due
 * holds its messages without a busy thread while a partition whose head is due flows.
 */
@Tag("integration")
class JdbcConsumerDelayTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@Test
	void aPartitionWaitsForItsHeadWithoutAThreadWhileADuePartitionFlows() {
		Duration delay = Duration.ofMinutes(10);
		MutableClock clock = new MutableClock(0);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 6);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			List<SendResult> early = transport.producer().sendBatch("reminders", keyed("a", 50));
			long afterEarly = System.currentTimeMillis();
			await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() > afterEarly + 5);
			List<SendResult> late = transport.producer().sendBatch("reminders", keyed("b", 30));
			int earlyQueue = early.get(0).partition();
			int lateQueue = late.get(0).partition();
			assertThat(earlyQueue).as("keys a and b on different queues").isNotEqualTo(lateQueue);
			Map<Integer, List<Message<byte[]>>> delivered = new ConcurrentHashMap<>();
			ContainerOptions options = ContainerOptions.builder("delayed").topics("reminders").group("reminders")
				.threadSize(2).ordering(Ordering.KEY).delay(delay).commitInterval(Duration.ofMillis(20))
				.pollTimeout(Duration.ofMillis(50)).build();
			BatchContainer container = BatchContainer.builder(options, transport.createSource(options), (slice) -> {
				for (Message<byte[]> message : slice) {
					assertThat(message.timestamp() + delay.toMillis()).isLessThanOrEqualTo(clock.millis());
					delivered.computeIfAbsent(message.partition(), (q) -> new java.util.concurrent.CopyOnWriteArrayList<>())
						.add(message);
				}
				return BatchResult.success();
			}, transport.deadLetterSink(options)).clock(clock).build();
			container.start();
			try {
				// Nothing is due: every message is fetched and held, and no worker is busy.
				await().atMost(Duration.ofSeconds(20)).until(() -> container.stats().backlog() == 80);
				assertThat(delivered).isEmpty();
				assertThat(container.stats().busyThreads()).isZero();

				// The early messages fall due, the late ones not yet: only the early queue flows.
				clock.set(afterEarly + delay.toMillis());
				await().atMost(Duration.ofSeconds(20)).until(() -> committed(container, earlyQueue) == 50);
				assertThat(delivered.get(earlyQueue)).hasSize(50);
				assertThat(delivered.get(lateQueue)).isNull();
				assertThat(container.stats().backlog()).isEqualTo(30);

				clock.set(System.currentTimeMillis() + delay.toMillis());
				await().atMost(Duration.ofSeconds(20)).until(() -> committed(container, lateQueue) == 30);
				assertThat(delivered.get(lateQueue)).hasSize(30);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	private static long committed(BatchContainer container, int queue) {
		return container.stats().partitions().stream().filter((p) -> p.partition().partition() == queue)
			.mapToLong(PartitionSnapshot::committedOffset).findFirst().orElse(-1);
	}

	private static List<Object> keyed(String key, int count) {
		List<Object> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(OutgoingMessage.builder().key(key).payload(key + i).build());
		}
		return messages;
	}

}

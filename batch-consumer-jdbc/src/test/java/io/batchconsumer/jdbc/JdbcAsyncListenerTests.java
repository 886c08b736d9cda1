package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.testing.AsyncTestListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Asynchronous listeners on H2: a stage completed later on another thread frees the worker at once
 * (more calls pending than threads) and is taken on like a synchronous result; a stage that never
 * completes times out after {@code async.timeout}, is retried and dead-lettered; one that completes
 * exceptionally is retried and dead-lettered with its own cause; and nothing is committed past a
 * pending stage until it completes.
 */
@Tag("integration")
class JdbcAsyncListenerTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@Test
	void stagesCompletedOnAnotherThreadFreeTheWorkersAndFailuresAreRetriedThenDeadLettered() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings);
				AsyncTestListener listener = new AsyncTestListener()) {
			List<OutgoingMessage> messages = new ArrayList<>();
			for (int i = 0; i < 500; i++) {
				String payload = switch (i) {
					case 100 -> "never-100";
					case 200 -> "broken-200";
					default -> "fine-" + i;
				};
				messages.add(OutgoingMessage.of("key-" + i, payload));
			}
			transport.producer().sendBatch("orders", messages);
			ContainerOptions options = ContainerOptions.builder("orders").topics("orders").group("billing")
				.ordering(Ordering.UNORDERED).threadSize(2).consumerBatchSize(1).retryMaxAttempts(2)
				.retryBackoff(Duration.ofMillis(1)).retryMaxBackoff(Duration.ofMillis(5))
				.asyncTimeout(Duration.ofMillis(300)).commitInterval(Duration.ZERO).build();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
					transport.deadLetterSink(options));
			container.start();
			try {
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(committed(container))
					.isEqualTo(500));
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			assertThat(listener.completed()).isEqualTo(498);
			assertThat(listener.mostPending()).as("calls pending at once on 2 threads").isGreaterThan(10);
			Map<String, StoredDeadLetter> dead = transport.storedDeadLetters()
				.list("billing", List.of("orders"), 0, 10)
				.deadLetters()
				.stream()
				.collect(Collectors.toMap((d) -> d.payloadText().orElseThrow(), Function.identity()));
			assertThat(dead).containsOnlyKeys("never-100", "broken-200");
			assertThat(dead.get("never-100").errorClass()).isEqualTo(TimeoutException.class.getName());
			assertThat(dead.get("never-100").attempts()).isEqualTo(2);
			assertThat(dead.get("broken-200").errorClass()).isEqualTo(IllegalStateException.class.getName());
			assertThat(dead.get("broken-200").attempts()).isEqualTo(2);
			assertThat(listener.deliveries("never-100")).isEqualTo(2);
			assertThat(listener.deliveries("broken-200")).isEqualTo(2);
			assertThat(container.stats().messagesDeadLettered()).isEqualTo(2);
			assertThat(container.stats().messagesSucceeded()).isEqualTo(498);
		}
	}

	@Test
	void nothingIsCommittedPastAPendingStageUntilItCompletes() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings);
				AsyncTestListener listener = new AsyncTestListener()) {
			List<OutgoingMessage> messages = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				messages.add(OutgoingMessage.of("key-" + i, (i == 10) ? "held-10" : "fine-" + i));
			}
			transport.producer().sendBatch("orders", messages);
			ContainerOptions options = ContainerOptions.builder("orders").topics("orders").group("billing")
				.ordering(Ordering.UNORDERED).threadSize(2).consumerBatchSize(1)
				.commitInterval(Duration.ZERO).build();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
					transport.deadLetterSink(options));
			container.start();
			try {
				listener.awaitHeld();
				// All but the held call and the calls of its slice after it complete (a slice's calls run
				// one after the other), and the engine has taken them on.
				await().atMost(Duration.ofSeconds(30)).until(() -> listener.completed() >= 190
						&& container.stats().partitions().get(0).backlog() == 200 - listener.completed());
				// commit.interval is 0: a commit past the held message would show at once (how close to it
				// the position gets depends on how the batches around it were cut)
				await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
					.until(() -> committed(container) <= 10);
				assertThat(container.stats().partitions().get(0).batches().get(0).slices())
					.extracting(BatchSnapshot.SliceSnapshot::state).contains(BatchSnapshot.SliceState.AWAITING_COMPLETION);
				assertThat(container.stats().busyThreads()).as("no worker waits for the stage").isZero();
				listener.release();
				await().atMost(Duration.ofSeconds(30)).until(() -> committed(container) == 200);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	private static long committed(BatchContainer container) {
		return container.stats().partitions().stream().mapToLong(PartitionSnapshot::committedOffset).sum();
	}

}

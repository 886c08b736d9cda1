package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SliceListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Key order across the retry queue on JDBC (H2 file, SQLite): a message of a poisoned key goes to the retry
 * queue, and the later messages of that key wait for its retry to finish, holding no thread, while the
 * other keys flow; the held key is read back from the retry queue when a container starts again.
 */
@Tag("integration")
class JdbcKeyRetryHoldTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "SQLITE" })
	void laterMessagesOfAKeyInTheRetryQueueWaitForItsDeadLetterWhileOtherKeysFlow(TestDatabases.Kind kind)
			throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			List<String> processed = new CopyOnWriteArrayList<>();
			// poison-1 always fails: one retry through the queue 1 s later, then the dead letter.
			BatchContainer container = container(transport, options().retryMaxAttempts(2).build(),
					failing("poison-1", processed));
			container.start();
			try {
				sendBehindTheFirstFailure(transport, container);
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					assertThat(processed).as("every other key flows").hasSize(40);
					ContainerSnapshot stats = container.stats();
					assertThat(stats.keysHeldForRetry()).isEqualTo(1);
					assertThat(stats.messagesHeldForRetry()).isEqualTo(2);
					assertThat(stats.busyThreads()).as("no thread waits for the retry").isZero();
				});
				assertThat(processed).noneMatch((text) -> text.startsWith("poison"));
				await().atMost(Duration.ofSeconds(10)).until(() -> processed.size() == 42);
				assertThat(container.stats().messagesDeadLettered()).isEqualTo(1);
				assertThat(processed.subList(40, 42)).containsExactly("poison-2", "poison-3");
				await().atMost(Duration.ofSeconds(5)).until(() -> container.stats().keysHeldForRetry() == 0);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	@Test
	void aKeyHeldByTheRetryQueueIsHeldAgainAfterARestartUntilItsRetrySucceeds() throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 10)) {
			JdbcSettings settings = TestDatabases.settings();
			List<String> processed = new CopyOnWriteArrayList<>();
			try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
				BatchContainer first = container(transport, options().retryLevels("3s").build(),
						failing("poison-1", processed));
				first.start();
				try {
					sendBehindTheFirstFailure(transport, first);
					await().atMost(Duration.ofSeconds(10)).until(() -> processed.size() == 40
							&& first.stats().messagesHeldForRetry() == 2);
				}
				finally {
					assertThat(first.stop()).isTrue();
				}
			}
			try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
				BatchContainer second = container(transport, options().retryLevels("3s").build(),
						failing("none", processed));
				second.start();
				try {
					await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
						assertThat(second.stats().keysHeldForRetry()).as("read back from the retry queue").isEqualTo(1);
						assertThat(second.stats().messagesHeldForRetry()).isEqualTo(2);
					});
					assertThat(processed).noneMatch((text) -> text.startsWith("poison"));
					await().atMost(Duration.ofSeconds(10)).until(() -> processed.contains("poison-3"));
					// Messages of other keys behind the held ones were not committed and came again: at-least-once.
					assertThat(processed.stream().filter((text) -> text.startsWith("poison")))
						.containsExactly("poison-1", "poison-2", "poison-3");
					await().atMost(Duration.ofSeconds(5)).until(() -> second.stats().keysHeldForRetry() == 0);
				}
				finally {
					assertThat(second.stop()).isTrue();
				}
			}
		}
	}

	/**
	 * Sends poison-1, then the rest once it failed: a message of its key delivered in the same listener
	 * call as the failed one is not held back (as with a retry in place), so the rest comes later.
	 */
	private static void sendBehindTheFirstFailure(JdbcTransport transport, BatchContainer container) {
		transport.producer().sendBatch("orders", List.of(OutgoingMessage.of("poison", "poison-1")));
		await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().messagesRetried() > 0);
		transport.producer().sendBatch("orders", messages());
	}

	/** Ten keys with four messages each, and two more of the poisoned key behind its first. */
	private static List<Object> messages() {
		List<Object> messages = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			messages.add(OutgoingMessage.of("key-" + (i % 10), "other-" + i));
			if (i == 10 || i == 30) {
				messages.add(OutgoingMessage.of("poison", (i == 10) ? "poison-2" : "poison-3"));
			}
		}
		return messages;
	}

	/** Records the messages that succeed, in order; every delivery of {@code failing} fails. */
	private static SliceListener failing(String failing, List<String> processed) {
		return (slice) -> {
			List<Message<byte[]>> failed = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				String text = new String(message.payload(), StandardCharsets.UTF_8);
				if (text.equals(failing)) {
					failed.add(message);
				}
				else {
					processed.add(text);
				}
			}
			return BatchResult.failed(failed);
		};
	}

	private static ContainerOptions.Builder options() {
		return ContainerOptions.builder("held").topics("orders").group("billing").threadSize(2).consumerBatchSize(5)
			.ordering(Ordering.KEY).retryMaxAttempts(3).retryLevels("1s").retryBlockingLimit(Duration.ofMillis(100))
			.commitInterval(Duration.ofMillis(20)).shutdownTimeout(Duration.ofSeconds(5));
	}

	private static BatchContainer container(JdbcTransport transport, ContainerOptions options, SliceListener listener) {
		return BatchContainer.builder(options, transport.createSource(options), listener, transport.deadLetterSink(options))
				.retryQueue(transport.retryQueue(options))
				.build();
	}

}

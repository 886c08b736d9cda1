package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.testing.ClassifyingListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Errors that are never retried, on H2: a message failed by a class of {@code retry.not-retryable}
 * (here a subclass, wrapped in another exception) or by a {@code BatchResult} that says "without
 * retry" reaches the listener once and goes to the dead-letter table at once, while an ordinary
 * failure is retried up to {@code retry.max-attempts}.
 */
@Tag("integration")
class JdbcNotRetryableTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@Test
	void aNotRetryableFailureGoesToTheDeadLetterTableOnItsFirstDelivery() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			for (int i = 0; i < 30; i++) {
				String payload = switch (i) {
					case 3 -> "invalid-3";
					case 13 -> "rejected-13";
					case 21 -> "flaky-21";
					default -> "fine-" + i;
				};
				transport.producer().sendBatch("orders", List.of(OutgoingMessage.of("key-" + i, payload)));
			}
			ContainerOptions options = ContainerOptions.builder("orders").topics("orders").group("billing")
				.consumerBatchSize(1).retryMaxAttempts(3).retryBackoff(Duration.ofMillis(1))
				.retryMaxBackoff(Duration.ofMillis(5)).commitInterval(Duration.ZERO)
				.retryNotRetryable(ClassifyingListener.ValidationFailure.class).build();
			ClassifyingListener listener = new ClassifyingListener();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
					transport.deadLetterSink(options));
			container.start();
			try {
				await().atMost(Duration.ofSeconds(20)).until(
						() -> transport.storedDeadLetters().list("billing", List.of("orders"), 0, 10).total() == 3);
				await().atMost(Duration.ofSeconds(20)).until(() -> container.stats().messagesSucceeded() == 27);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			Map<String, StoredDeadLetter> dead = transport.storedDeadLetters()
				.list("billing", List.of("orders"), 0, 10)
				.deadLetters()
				.stream()
				.collect(Collectors.toMap((d) -> d.payloadText().orElseThrow(), Function.identity()));
			assertThat(dead).containsOnlyKeys("invalid-3", "rejected-13", "flaky-21");
			assertThat(dead.get("invalid-3").attempts()).isEqualTo(1);
			assertThat(dead.get("invalid-3").errorClass()).isEqualTo(IllegalStateException.class.getName());
			assertThat(dead.get("rejected-13").attempts()).isEqualTo(1);
			assertThat(dead.get("flaky-21").attempts()).isEqualTo(3);
			assertThat(listener.deliveries("invalid-3")).isEqualTo(1);
			assertThat(listener.deliveries("rejected-13")).isEqualTo(1);
			assertThat(listener.deliveries("flaky-21")).isEqualTo(3);
			assertThat(container.stats().messagesDeadLettered()).isEqualTo(3);
			assertThat(container.stats().messagesRetried()).as("only the flaky message's two retries").isEqualTo(2);
		}
	}

}

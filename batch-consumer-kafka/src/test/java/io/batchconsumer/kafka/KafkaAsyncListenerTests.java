package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.testing.AsyncTestListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Asynchronous listeners on the in-process broker: stages completed later on another thread free
 * the workers (more calls pending than threads); a stage that never completes times out after
 * {@code async.timeout} and, like one that completes exceptionally, is retried and dead-lettered;
 * and no offset is committed past a pending stage until it completes.
 */
@Tag("integration")
class KafkaAsyncListenerTests extends SharedKafkaTransportTests {

	@Test
	void stagesCompletedOnAnotherThreadFreeTheWorkersAndFailuresAreRetriedThenDeadLettered() throws Exception {
		String topic = "async";
		broker.createTopic(topic, 2);
		broker.fill(topic, 2, 300, (i) -> switch (i) {
			case 100 -> "never-100";
			case 200 -> "broken-200";
			default -> "fine-" + i;
		});
		ContainerOptions options = KafkaTransportTests.options("async", topic).ordering(Ordering.UNORDERED)
			.threadSize(2).consumerBatchSize(1).retryMaxAttempts(2).asyncTimeout(Duration.ofMillis(300)).build();
		try (AsyncTestListener listener = new AsyncTestListener()) {
			BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
					transport.deadLetterSink(options));
			container.start();
			try {
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
						broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 300L, 1, 300L)));
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			assertThat(listener.mostPending()).as("calls pending at once on 2 threads").isGreaterThan(10);
			assertThat(listener.deliveries("never-100")).isEqualTo(4); // two partitions, two attempts each
			assertThat(listener.deliveries("broken-200")).isEqualTo(4);
			assertThat(container.stats().messagesDeadLettered()).isEqualTo(4);
			assertThat(container.stats().messagesSucceeded()).isEqualTo(596);
		}
		Map<String, Long> errors = broker.readAll(topic + ".DLQ", 4, Duration.ofSeconds(20))
			.stream()
			.collect(Collectors.groupingBy((r) -> new String(r.value(), StandardCharsets.UTF_8) + " "
					+ KafkaTransportTests.header(r, "bc-error-class") + " " + KafkaTransportTests.header(r, "bc-attempts"),
					Collectors.counting()));
		assertThat(errors).isEqualTo(Map.of("never-100 " + TimeoutException.class.getName() + " 2", 2L,
				"broken-200 " + IllegalStateException.class.getName() + " 2", 2L));
	}

	@Test
	void noOffsetIsCommittedPastAPendingStageUntilItCompletes() throws Exception {
		String topic = "async-held";
		broker.createTopic(topic, 1);
		broker.fill(topic, 1, 200, (i) -> (i == 10) ? "held-10" : "fine-" + i);
		ContainerOptions options = KafkaTransportTests.options("async-held", topic).ordering(Ordering.UNORDERED)
			.threadSize(2).consumerBatchSize(1).commitInterval(Duration.ZERO).build();
		try (AsyncTestListener listener = new AsyncTestListener()) {
			BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
					transport.deadLetterSink(options));
			container.start();
			try {
				listener.awaitHeld();
				// All but the held call and the calls of its slice after it complete, taken on by the engine.
				// The snapshot lists no partition while an assignment is under way.
				await().atMost(Duration.ofSeconds(30)).until(() -> listener.completed() >= 190
						&& container.stats().partitions().stream()
							.anyMatch((partition) -> partition.backlog() == 200 - listener.completed()));
				await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
					.until(() -> broker.committed(options.group(), topic).getOrDefault(0, 0L) <= 10L);
				listener.release();
				await().atMost(Duration.ofSeconds(30)).untilAsserted(
						() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 200L)));
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	@Test
	void aStopWaitsForAPendingStageAndCommitsWhatItFinished() throws Exception {
		String topic = "async-stop";
		broker.createTopic(topic, 1);
		broker.fill(topic, 1, 50, (i) -> (i == 49) ? "held-49" : "fine-" + i);
		ContainerOptions options = KafkaTransportTests.options("async-stop", topic).ordering(Ordering.UNORDERED)
			.threadSize(2).consumerBatchSize(1).build();
		try (AsyncTestListener listener = new AsyncTestListener()) {
			BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
					transport.deadLetterSink(options));
			container.start();
			listener.awaitHeld();
			await().atMost(Duration.ofSeconds(30)).until(() -> listener.completed() == 49);
			CompletableFuture<Boolean> stopped = CompletableFuture.supplyAsync(container::stop);
			await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !stopped.isDone());
			listener.release();
			assertThat(stopped.get(20, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 50L));
	}

}

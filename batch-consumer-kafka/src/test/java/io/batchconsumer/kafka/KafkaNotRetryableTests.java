package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.testing.ClassifyingListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Errors that are never retried, on the in-process broker: a record failed by a class of
 * {@code retry.not-retryable} (a subclass, wrapped) or by a {@code BatchResult} that says "without
 * retry" reaches the listener once and goes to the dead-letter topic with one attempt; an ordinary
 * failure is retried up to {@code retry.max-attempts}.
 */
@Tag("integration")
class KafkaNotRetryableTests extends SharedKafkaTransportTests {

	@Test
	void aNotRetryableFailureGoesToTheDeadLetterTopicOnItsFirstDelivery() throws Exception {
		String topic = "not-retryable";
		broker.createTopic(topic, 1);
		broker.fill(topic, 1, 30, (i) -> switch (i) {
			case 3 -> "invalid-3";
			case 13 -> "rejected-13";
			case 21 -> "flaky-21";
			default -> "fine-" + i;
		});
		ContainerOptions options = KafkaTransportTests.options("not-retryable", topic).consumerBatchSize(1)
			.retryMaxAttempts(3).retryNotRetryable(List.of(ClassifyingListener.ValidationFailure.class.getName()))
			.build();
		ClassifyingListener listener = new ClassifyingListener();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
				transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 30L)));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		Map<String, ConsumerRecord<String, byte[]>> dead = broker.readAll(topic + ".DLQ", 3, Duration.ofSeconds(20))
			.stream()
			.collect(Collectors.toMap((r) -> new String(r.value(), StandardCharsets.UTF_8), Function.identity()));
		assertThat(dead).containsOnlyKeys("invalid-3", "rejected-13", "flaky-21");
		assertThat(KafkaTransportTests.header(dead.get("invalid-3"), "bc-attempts")).isEqualTo("1");
		assertThat(KafkaTransportTests.header(dead.get("rejected-13"), "bc-attempts")).isEqualTo("1");
		assertThat(KafkaTransportTests.header(dead.get("flaky-21"), "bc-attempts")).isEqualTo("3");
		assertThat(listener.deliveries("invalid-3")).isEqualTo(1);
		assertThat(listener.deliveries("rejected-13")).isEqualTo(1);
		assertThat(listener.deliveries("flaky-21")).isEqualTo(3);
		assertThat(container.stats().messagesDeadLettered()).isEqualTo(3);
		assertThat(container.stats().messagesRetried()).isEqualTo(2);
	}

}

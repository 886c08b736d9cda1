package io.batchconsumer.spring.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The retry queue through the starter on an H2 file: a listener failing every message with
 * {@code retry.levels=200ms} above {@code retry.blocking-limit=50ms} sends each message to the retry
 * queue twice, counted as {@code batch.consumer.messages{outcome=retry-queue}}, then dead-letters it
 * under its original topic, partition and offset.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=retry-queue-meters", "batch-consumer.commit.interval=50ms",
		"batch-consumer.shutdown-timeout=5s", "batch-consumer.listeners.payments.ordering=unordered",
		"batch-consumer.listeners.payments.retry.max-attempts=3",
		"batch-consumer.listeners.payments.retry.levels=200ms",
		"batch-consumer.listeners.payments.retry.blocking-limit=50ms" })
@Tag("integration")
class RetryQueueMetersH2Tests {

	@Autowired
	private BatchProducer producer;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private Transport transport;

	@Autowired
	private Listeners listeners;

	@Test
	void messagesSentToTheRetryQueueAreCountedAndTheirDeadLettersNameTheOriginalTopic() {
		List<SendResult> sent = this.producer.sendBatch("payments", List.of("p-1", "p-2", "p-3", "p-4", "p-5"));
		assertThat(sent).allMatch(SendResult::isStored);
		await().atMost(Duration.ofSeconds(15)).until(() -> count("dead-letter") == 5);
		// attempts 2 and 3 of each came back through the retry queue; none waited on a worker
		assertThat(count("retry-queue")).isEqualTo(10);
		assertThat(count("retry")).isEqualTo(10);
		assertThat(this.listeners.retryTopics).containsExactly("bc.retry.payments.payments");
		DeadLetterPage page = this.transport.storedDeadLetters().list("payments", List.of("payments"), 0, 10);
		assertThat(page.deadLetters()).extracting((d) -> d.partition() + "@" + d.offset())
			.containsExactlyInAnyOrderElementsOf(sent.stream().map((r) -> r.partition() + "@" + r.offset()).toList());
		assertThat(page.deadLetters()).extracting(StoredDeadLetter::attempts).containsOnly(3);
	}

	private double count(String outcome) {
		return this.meters.get("batch.consumer.messages")
			.tag("listener", "payments")
			.tag("outcome", outcome)
			.functionCounter()
			.count();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Component
	static class Listeners {

		final Set<String> retryTopics = ConcurrentHashMap.newKeySet();

		@BatchListener(id = "payments", topics = "payments", group = "payments")
		void onPayment(Message<String> message) {
			if (message.deliveryAttempt() > 1) {
				this.retryTopics.add(message.topic());
			}
			throw new IllegalStateException("cannot pay " + message.payload());
		}

	}

}

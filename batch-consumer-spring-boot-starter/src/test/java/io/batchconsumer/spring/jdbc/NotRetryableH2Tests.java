package io.batchconsumer.spring.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

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
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code retry.not-retryable} through the starter on an H2 file: the global list applies to
 * {@code payments}, {@code orders} names its own class, and a list listener's
 * {@link BatchResult#failedWithoutRetryAt} is honoured. Each such message reaches its listener once
 * and is counted as {@code batch.consumer.messages{outcome=dead-letter}}, with no retry, although
 * {@code retry.max-attempts} is 5 and the back-off long.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=not-retryable", "batch-consumer.commit.interval=50ms",
		"batch-consumer.shutdown-timeout=5s", "batch-consumer.retry.max-attempts=5",
		"batch-consumer.retry.backoff=10s", "batch-consumer.retry.max-backoff=10s", "batch-consumer.retry.blocking-limit=1m",
		"batch-consumer.retry.not-retryable=java.lang.IllegalArgumentException",
		"batch-consumer.listeners.orders.retry.not-retryable[0]="
				+ "io.batchconsumer.spring.jdbc.NotRetryableH2Tests$ValidationFailure" })
@Tag("integration")
class NotRetryableH2Tests {

	@Autowired
	private BatchProducer producer;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private Transport transport;

	@Autowired
	private Listeners listeners;

	@Test
	void notRetryableFailuresGoToTheDeadLetterOnTheirFirstDeliveryAndAreCounted() {
		this.producer.sendBatch("payments", List.of("bad-amount-1", "bad-amount-2"));
		this.producer.sendBatch("orders", List.of("invalid-order", "rejected-order", "fine-order"));
		await().atMost(Duration.ofSeconds(15)).until(() -> count("payments", "dead-letter") == 2
				&& count("orders", "dead-letter") == 2);
		assertThat(count("payments", "retry")).isZero();
		assertThat(count("orders", "retry")).isZero();
		assertThat(count("orders", "success")).isEqualTo(1);
		assertThat(this.listeners.deliveries).containsExactlyInAnyOrderEntriesOf(Map.of("bad-amount-1", 1,
				"bad-amount-2", 1, "invalid-order", 1, "rejected-order", 1, "fine-order", 1));
		assertThat(this.transport.storedDeadLetters().list("orders", List.of("orders"), 0, 10).deadLetters())
			.extracting(StoredDeadLetter::attempts)
			.containsOnly(1);
	}

	private double count(String listener, String outcome) {
		return this.meters.get("batch.consumer.messages")
			.tag("listener", listener)
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

	/** The class {@code orders} lists as not retryable. */
	static class ValidationFailure extends RuntimeException {

		ValidationFailure(String message) {
			super(message);
		}

	}

	@Component
	static class Listeners {

		final Map<String, Integer> deliveries = new ConcurrentHashMap<>();

		@BatchListener(id = "payments", topics = "payments", group = "payments")
		void onPayment(String payment) {
			this.deliveries.merge(payment, 1, Integer::sum);
			throw new IllegalArgumentException("cannot pay " + payment);
		}

		@BatchListener(id = "orders", topics = "orders", group = "orders", ordering = "unordered")
		BatchResult onOrders(List<String> orders) {
			BatchResult.Builder result = BatchResult.builder();
			for (int i = 0; i < orders.size(); i++) {
				String order = orders.get(i);
				this.deliveries.merge(order, 1, Integer::sum);
				if (order.startsWith("invalid")) {
					throw new ValidationFailure("invalid " + order);
				}
				if (order.startsWith("rejected")) {
					result.failWithoutRetry(i, new IllegalStateException("rejected " + order));
				}
			}
			return result.build();
		}

	}

}

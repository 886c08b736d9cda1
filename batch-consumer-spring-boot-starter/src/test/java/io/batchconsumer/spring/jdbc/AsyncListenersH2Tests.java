package io.batchconsumer.spring.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

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
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @BatchListener} methods that return a {@code CompletionStage}, through the starter on an H2
 * file: a single-message method's {@code CompletionStage<Void>} and a list method's
 * {@code CompletionStage<BatchResult>} complete on another thread; a stage that fails is retried
 * and dead-lettered, one that never completes times out after {@code async.timeout}, and a result
 * "without retry" is dead-lettered at once; every outcome is counted on the meters. Calls whose
 * stages are pending are counted as in flight, more of them than worker threads.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=async-listeners", "batch-consumer.commit.interval=50ms",
		"batch-consumer.shutdown-timeout=5s", "batch-consumer.retry.max-attempts=2",
		"batch-consumer.retry.backoff=10ms", "batch-consumer.listeners.payments.async.timeout=300ms",
		"batch-consumer.listeners.lookups.thread-size=2", "batch-consumer.listeners.lookups.consumer-batch-size=1" })
@Tag("integration")
class AsyncListenersH2Tests {

	@Autowired
	private BatchProducer producer;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private Transport transport;

	@Autowired
	private Listeners listeners;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Test
	void stagesCompleteOnAnotherThreadAndTheirFailuresAreRetriedAndDeadLettered() {
		this.producer.sendBatch("payments", List.of("pay-1", "pay-2", "fail-3", "never-4"));
		this.producer.sendBatch("orders", List.of("order-1", "order-2", "invalid-3"));
		await().atMost(Duration.ofSeconds(20)).until(() -> count("payments", "dead-letter") == 2
				&& count("orders", "dead-letter") == 1 && count("payments", "success") == 2
				&& count("orders", "success") == 2);
		assertThat(count("payments", "retry")).isEqualTo(2);
		assertThat(count("orders", "retry")).isZero();
		assertThat(this.listeners.deliveries).containsAllEntriesOf(
				Map.of("pay-1", 1, "fail-3", 2, "never-4", 2, "order-1", 1, "invalid-3", 1));
		assertThat(this.listeners.completingThreads).allMatch((name) -> name.startsWith("completer"));
		assertThat(this.transport.storedDeadLetters().list("payments", List.of("payments"), 0, 10).deadLetters())
			.extracting(StoredDeadLetter::errorClass)
			.containsExactlyInAnyOrder(IllegalStateException.class.getName(),
					java.util.concurrent.TimeoutException.class.getName());
	}

	@Test
	void callsWhoseStagesArePendingAreShownInFlight() {
		List<String> lookups = IntStream.range(0, 12).mapToObj((i) -> "lookup-" + i).toList();
		this.producer.sendBatch("lookups", lookups);
		await().atMost(Duration.ofSeconds(20)).until(() -> this.listeners.pendingLookups.size() == lookups.size());
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(this.registry.getContainer("lookups").stats().asyncCallsInFlight()).isEqualTo(lookups.size());
			assertThat(inFlight()).isEqualTo(lookups.size());
		});
		assertThat(this.registry.getContainer("lookups").stats().threadSize()).isEqualTo(2);
		this.listeners.pendingLookups.forEach((stage) -> stage.complete(null));
		await().atMost(Duration.ofSeconds(20)).until(() -> count("lookups", "success") == lookups.size());
		await().atMost(Duration.ofSeconds(5)).until(() -> inFlight() == 0);
	}

	private double inFlight() {
		return this.meters.get("batch.consumer.async.in.flight").tag("listener", "lookups").gauge().value();
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

	@Component
	static class Listeners {

		final Map<String, Integer> deliveries = new ConcurrentHashMap<>();

		final Set<String> completingThreads = ConcurrentHashMap.newKeySet();

		/** Stands for an HTTP client's threads: completes each call 10 ms later. */
		private final Executor completer = CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS,
				(task) -> new Thread(task, "completer").start());

		@BatchListener(id = "payments", topics = "payments", group = "payments")
		CompletionStage<Void> onPayment(String payment) {
			this.deliveries.merge(payment, 1, Integer::sum);
			if (payment.startsWith("never")) {
				return new CompletableFuture<>();
			}
			return CompletableFuture.runAsync(() -> {
				this.completingThreads.add(Thread.currentThread().getName());
				if (payment.startsWith("fail")) {
					throw new IllegalStateException("cannot pay " + payment);
				}
			}, this.completer);
		}

		/** Stands for calls still waiting for their answer: the test completes them. */
		final Queue<CompletableFuture<BatchResult>> pendingLookups = new ConcurrentLinkedQueue<>();

		@BatchListener(id = "lookups", topics = "lookups", group = "lookups", ordering = "unordered")
		CompletionStage<BatchResult> onLookups(List<String> lookups) {
			CompletableFuture<BatchResult> stage = new CompletableFuture<>();
			lookups.forEach((lookup) -> this.pendingLookups.add(stage));
			return stage;
		}

		@BatchListener(id = "orders", topics = "orders", group = "orders", ordering = "unordered")
		CompletionStage<BatchResult> onOrders(List<String> orders) {
			orders.forEach((order) -> this.deliveries.merge(order, 1, Integer::sum));
			return CompletableFuture.supplyAsync(() -> {
				this.completingThreads.add(Thread.currentThread().getName());
				BatchResult.Builder result = BatchResult.builder();
				for (int i = 0; i < orders.size(); i++) {
					if (orders.get(i).startsWith("invalid")) {
						result.failWithoutRetry(i, new IllegalArgumentException("invalid " + orders.get(i)));
					}
				}
				return result.build();
			}, this.completer);
		}

	}

}

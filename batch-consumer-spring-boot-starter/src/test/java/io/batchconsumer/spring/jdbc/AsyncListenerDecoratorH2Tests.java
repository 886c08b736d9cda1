package io.batchconsumer.spring.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
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
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.SliceListenerDecorator;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application's {@link SliceListenerDecorator} that knows nothing of asynchronous listeners (it
 * wraps every listener in a plain {@code SliceListener}) keeps an asynchronous listener asynchronous:
 * it surrounds the start of each call, and the worker is free while the call's stage is pending, so
 * two worker threads keep every call of the backlog in flight.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=async-decorator", "batch-consumer.commit.interval=50ms",
		"batch-consumer.shutdown-timeout=5s", "batch-consumer.listeners.lookups.thread-size=2",
		"batch-consumer.listeners.lookups.consumer-batch-size=1" })
@Tag("integration")
class AsyncListenerDecoratorH2Tests {

	@Autowired
	private BatchProducer producer;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Lookups lookups;

	@Autowired
	private TestApplication application;

	@Test
	void aDecoratedAsynchronousListenerFreesItsWorkerWhileItsStageIsPending() {
		List<String> sent = IntStream.range(0, 12).mapToObj((i) -> "lookup-" + i).toList();
		this.producer.sendBatch("lookups", sent);
		await().atMost(Duration.ofSeconds(15)).until(() -> this.lookups.pending.size() == sent.size());
		assertThat(this.application.decoratedCalls).as("every call went through the decorator").hasValue(sent.size());
		assertThat(this.registry.getContainer("lookups").stats().threadSize()).isEqualTo(2);
		this.lookups.pending.forEach((stage) -> stage.complete(null));
		await().atMost(Duration.ofSeconds(20)).until(() -> this.meters.get("batch.consumer.messages")
			.tag("listener", "lookups")
			.tag("outcome", "success")
			.functionCounter()
			.count() == sent.size());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Lookups.class)
	static class TestApplication {

		final AtomicInteger decoratedCalls = new AtomicInteger();

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		/** Counts the calls it surrounds, as a decorator for logging context or timing would. */
		@Bean
		SliceListenerDecorator countingDecorator() {
			return (options, listener) -> (slice) -> {
				this.decoratedCalls.incrementAndGet();
				return listener.onSlice(slice);
			};
		}

	}

	@Component
	static class Lookups {

		/** Stands for calls still waiting for their answer: the test completes them. */
		final Queue<CompletableFuture<BatchResult>> pending = new ConcurrentLinkedQueue<>();

		@BatchListener(id = "lookups", topics = "lookups", group = "lookups", ordering = "unordered")
		CompletionStage<BatchResult> onLookups(List<String> lookups) {
			CompletableFuture<BatchResult> stage = new CompletableFuture<>();
			lookups.forEach((lookup) -> this.pending.add(stage));
			return stage;
		}

	}

}

package io.batchconsumer.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A single-message method that returns a {@code CompletionStage}, in {@code key} order with wide
 * slices (one call of the slice takes all its messages): a key's next call starts only after its
 * previous one completed, in offset order, while calls of other keys overlap.
 */
class AsyncSingleMessageOrderTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, KeyedAsync.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s", "batch-consumer.pull-batch-size=200",
				"batch-consumer.thread-size=2");

	@Test
	void aKeysCallsStartOneAfterTheOtherInOffsetOrderWhileOtherKeysOverlap() {
		this.runner.run((context) -> {
			List<OutgoingMessage> messages = new ArrayList<>();
			for (int i = 0; i < 300; i++) {
				messages.add(OutgoingMessage.of("key-" + (i % 5), "event-" + i));
			}
			context.getBean(BatchProducer.class).sendBatch("keyed", messages);
			KeyedAsync listener = context.getBean(KeyedAsync.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> listener.completed.get() == 300);
			assertThat(listener.overlapsOfOneKey).isEmpty();
			assertThat(listener.mostPending.get()).as("calls of different keys overlap").isGreaterThan(1);
			listener.started.forEach((key, offsets) -> assertThat(new ArrayList<>(offsets)).as(key).isSorted());
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class KeyedAsync {

		final Map<String, AtomicInteger> pendingOfKey = new ConcurrentHashMap<>();

		final Map<String, Queue<Long>> started = new ConcurrentHashMap<>();

		final Queue<String> overlapsOfOneKey = new ConcurrentLinkedQueue<>();

		final AtomicInteger pending = new AtomicInteger();

		final AtomicInteger mostPending = new AtomicInteger();

		final AtomicInteger completed = new AtomicInteger();

		private final Executor later = CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS);

		@BatchListener(id = "keyed", topics = "keyed")
		CompletionStage<Void> onEvent(Message<String> event) {
			String key = event.key() + "@" + event.partition();
			this.started.computeIfAbsent(key, (k) -> new ConcurrentLinkedQueue<>()).add(event.offset());
			if (this.pendingOfKey.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet() > 1) {
				this.overlapsOfOneKey.add(key + " at " + event.offset());
			}
			this.mostPending.accumulateAndGet(this.pending.incrementAndGet(), Math::max);
			return CompletableFuture.runAsync(() -> {
				this.pendingOfKey.get(key).decrementAndGet();
				this.pending.decrementAndGet();
				this.completed.incrementAndGet();
			}, this.later);
		}

	}

}

package io.batchconsumer.spring.jdbc;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import io.batchconsumer.core.Message;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tags, filters and the consumer delay through the starter on H2: {@code @BatchListener(tags)},
 * {@code batch-consumer.listeners.<id>.tags}, a {@link MessageFilter} bean for one listener,
 * {@code batch-consumer.listeners.<id>.delay}, and the {@code outcome=filtered} meter.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=selective-tests", "batch-consumer.commit.interval=50ms",
		"batch-consumer.shutdown-timeout=10s", "batch-consumer.listeners.shipping.tags=shipped",
		"batch-consumer.listeners.delayed.delay=1s" })
@Tag("integration")
class SelectiveConsumptionH2Tests {

	private static final String[] TAGS = { "created", "paid", "shipped", "cancelled" };

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listeners listeners;

	@Autowired
	private MeterRegistry meters;

	@Test
	void annotationTagsPropertyTagsAndAFilterBeanSelectTheMessagesAndTheRestIsCommittedAndCounted() {
		List<Object> batch = new ArrayList<>();
		Set<Integer> billed = ConcurrentHashMap.newKeySet();
		Set<Integer> shipped = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 400; i++) {
			String tag = TAGS[i % TAGS.length];
			batch.add(OutgoingMessage.builder().key("order-" + (i % 13)).tag(tag).payload(Integer.toString(i)).build());
			if (tag.equals("created") || tag.equals("paid")) {
				billed.add(i);
			}
			if (tag.equals("shipped") && i % 3 != 0) {
				shipped.add(i);
			}
		}
		List<SendResult> sent = this.producer.sendBatch("orders", batch);
		assertThat(sent).allMatch(SendResult::isStored);
		Map<Integer, Long> ends = new ConcurrentHashMap<>();
		sent.forEach((result) -> ends.merge(result.partition(), result.offset() + 1, Math::max));
		for (String id : List.of("billing", "shipping")) {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				List<PartitionSnapshot> partitions = this.registry.getContainer(id).stats().partitions();
				assertThat(partitions).hasSize(ends.size());
				assertThat(partitions).allSatisfy((p) -> assertThat(p.committedOffset())
					.isEqualTo(ends.get(p.partition().partition())));
			});
		}
		assertThat(this.listeners.billing).isEqualTo(billed);
		assertThat(this.listeners.shipping).isEqualTo(shipped);
		assertThat(this.meters.get("batch.consumer.messages").tag("listener", "billing").tag("outcome", "filtered")
			.functionCounter().count()).isEqualTo(400 - billed.size());
		assertThat(this.meters.get("batch.consumer.messages").tag("listener", "shipping").tag("outcome", "filtered")
			.functionCounter().count()).isEqualTo(400 - shipped.size());
	}

	@Test
	void aDelayedListenerGetsAMessageNoEarlierThanItsTimestampPlusTheDelay() {
		assertThat(this.producer.sendBatch("reminders", List.of("a", "b", "c"))).allMatch(SendResult::isStored);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.listeners.delayed.size() == 3);
		for (long[] pair : this.listeners.delayed) {
			long lateness = pair[1] - pair[0];
			assertThat(lateness).as("delivered after its timestamp").isGreaterThanOrEqualTo(1000).isLessThan(5000);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		MessageFilter everyThirdIsNotShipped() {
			return MessageFilter.forListener("shipping", (message) -> value(message) % 3 != 0);
		}

	}

	static int value(Message<byte[]> message) {
		return Integer.parseInt(new String(message.payload(), StandardCharsets.UTF_8));
	}

	@Component
	static class Listeners {

		final Set<Integer> billing = ConcurrentHashMap.newKeySet();

		final Set<Integer> shipping = ConcurrentHashMap.newKeySet();

		final List<long[]> delayed = java.util.Collections.synchronizedList(new ArrayList<>());

		@BatchListener(id = "billing", topics = "orders", group = "billing", tags = "created || paid")
		void onBilling(List<Message<String>> batch) {
			batch.forEach((message) -> this.billing.add(Integer.parseInt(message.payload())));
		}

		@BatchListener(id = "shipping", topics = "orders", group = "shipping")
		void onShipping(List<Message<String>> batch) {
			batch.forEach((message) -> this.shipping.add(Integer.parseInt(message.payload())));
		}

		@BatchListener(id = "delayed", topics = "reminders", group = "reminders")
		void onReminder(Message<String> message) {
			this.delayed.add(new long[] { message.timestamp(), System.currentTimeMillis() });
		}

	}

}

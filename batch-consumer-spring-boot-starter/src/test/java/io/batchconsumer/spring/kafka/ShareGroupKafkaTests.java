package io.batchconsumer.spring.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.testing.Event;
import io.batchconsumer.testsupport.SharedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @BatchListener} on a Kafka share group, configured by properties only
 * ({@code batch-consumer.listeners.<id>.kafka.share-group}): JSON events sent in batches to one
 * partition arrive once, and the container's statistics and the {@code batch.consumer.share.*}
 * meters count them. The group starts at the earliest record
 * ({@code kafka.share-auto-offset-reset}).
 */
@SharedKafkaBroker(partitions = 1, topics = "shared-events")
@SpringBootTest(properties = { "spring.application.name=share-tests", "batch-consumer.transport=kafka",
		"batch-consumer.commit.interval=50ms", "batch-consumer.shutdown-timeout=10s",
		"batch-consumer.listeners.shared.kafka.share-group=true",
		"batch-consumer.listeners.shared.ordering=unordered",
		"batch-consumer.listeners.shared.kafka.share-auto-offset-reset=earliest" })
@Tag("integration")
class ShareGroupKafkaTests {

	private static final int EVENTS = 2_000;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private KafkaTransport transport;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Events events;

	@Autowired
	private MeterRegistry meters;

	@Test
	void everyEventArrivesOnceThroughTheShareGroupAndIsCounted() {
		assertThat(this.transport.usesShareGroup("shared")).isTrue();
		for (int from = 0; from < EVENTS; from += 100) {
			List<OutgoingMessage> batch = IntStream.range(from, from + 100)
				.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 13), Event.of(id)))
				.toList();
			assertThat(this.producer.sendBatch("shared-events", batch)).allMatch(SendResult::isStored);
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> this.events.seen.size() == EVENTS);
		assertThat(this.events.seen.values()).allMatch((count) -> count.get() == 1);
		BatchContainer container = this.registry.getContainer("shared");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(container.stats().messagesSucceeded()).isEqualTo(EVENTS));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.meters
			.get("batch.consumer.share.acknowledgements").tags("listener", "shared", "type", "accept").functionCounter()
			.count()).isEqualTo(EVENTS));
		assertThat(this.meters.get("batch.consumer.share.records.acquired").tags("listener", "shared")
			.functionCounter().count()).isEqualTo(EVENTS);
		assertThat(this.meters.get("batch.consumer.share.acknowledgements").tags("type", "reject").functionCounter()
			.count()).isZero();
		assertThat(this.meters.get("batch.consumer.share.records.held").tags("listener", "shared").gauges()).hasSize(4);
		assertThat(this.meters.get("batch.consumer.share.lag").tags("listener", "shared").gauge()).isNotNull();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Events.class)
	static class Application {

	}

	@Component
	static class Events {

		final Map<Integer, AtomicInteger> seen = new ConcurrentHashMap<>();

		@BatchListener(id = "shared", topics = "shared-events")
		void onEvents(List<Event> events) {
			events.forEach((event) -> this.seen.computeIfAbsent(event.id(), (id) -> new AtomicInteger()).incrementAndGet());
		}

	}

}

package io.batchconsumer.spring.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
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
import io.batchconsumer.testsupport.SharedKafka;
import io.batchconsumer.testsupport.SharedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @BatchListener} on a Kafka share group, configured by properties only
 * ({@code batch-consumer.listeners.<id>.kafka.share-group}): JSON events sent in batches to one
 * partition arrive once, and the container's statistics count them.
 */
@SharedKafkaBroker(partitions = 1, topics = "shared-events")
@SpringBootTest(properties = { "spring.application.name=share-tests", "batch-consumer.transport=kafka",
		"batch-consumer.commit.interval=50ms", "batch-consumer.shutdown-timeout=10s",
		"batch-consumer.listeners.shared.kafka.share-group=true",
		"batch-consumer.listeners.shared.ordering=unordered" })
@Tag("integration")
class ShareGroupKafkaTests {

	private static final int EVENTS = 2_000;

	static {
		// The group starts at the earliest record: before the context, so before the first fetch.
		try (Admin admin = Admin.create(SharedKafka.instance().clientProperties())) {
			admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, "share-tests"),
					List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
							AlterConfigOp.OpType.SET))))
				.all()
				.get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Autowired
	private BatchProducer producer;

	@Autowired
	private KafkaTransport transport;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Events events;

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

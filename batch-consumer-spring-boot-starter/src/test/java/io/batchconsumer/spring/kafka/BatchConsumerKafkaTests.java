package io.batchconsumer.spring.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.testing.Event;
import io.batchconsumer.testsupport.SharedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @BatchListener} application on a real in-process Kafka broker, configured with
 * {@code batch-consumer.transport=kafka} and {@code spring.kafka.bootstrap-servers} only: JSON
 * events sent in batches arrive exactly once, and the group's committed offsets reach the end of
 * every partition.
 */
@SharedKafkaBroker(partitions = 3, topics = "events")
@SpringBootTest(properties = { "spring.application.name=kafka-tests", "batch-consumer.transport=kafka",
		"batch-consumer.commit.interval=100ms",
		"batch-consumer.shutdown-timeout=10s" })
@Tag("integration")
class BatchConsumerKafkaTests {

	private static final int EVENTS = 5_000;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Transport transport;

	@Autowired
	private Events events;

	@Value("${spring.kafka.bootstrap-servers}")
	private String brokers;

	@Test
	void everyEventSentInBatchesArrivesOnceAndTheGroupCommitsToTheEnd() throws Exception {
		assertThat(this.transport).isInstanceOf(KafkaTransport.class);
		for (int from = 0; from < EVENTS; from += 100) {
			List<OutgoingMessage> batch = IntStream.range(from, from + 100)
				.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 13), Event.of(id)))
				.toList();
			List<SendResult> results = this.producer.sendBatch("events", batch);
			assertThat(results).allMatch(SendResult::isStored);
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> this.events.seen.size() == EVENTS);
		assertThat(this.events.seen.values()).allMatch((count) -> count.get() == 1);
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, this.brokers))) {
			await().atMost(Duration.ofSeconds(30)).until(() -> committedEqualsEnd(admin));
		}
	}

	private static boolean committedEqualsEnd(Admin admin) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("kafka-tests")
			.partitionsToOffsetAndMetadata()
			.get();
		Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, 3)
			.boxed()
			.collect(Collectors.toMap((p) -> new TopicPartition("events", p), (p) -> OffsetSpec.latest()));
		var ends = admin.listOffsets(latest).all().get();
		return ends.entrySet()
			.stream()
			.allMatch((end) -> committed.containsKey(end.getKey())
					&& committed.get(end.getKey()).offset() == end.getValue().offset());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Events.class)
	static class Application {

	}

	@Component
	static class Events {

		final Map<Integer, AtomicInteger> seen = new ConcurrentHashMap<>();

		@BatchListener(id = "events", topics = "events")
		void onEvents(List<Event> events) {
			events.forEach((event) -> this.seen.computeIfAbsent(event.id(), (id) -> new AtomicInteger()).incrementAndGet());
		}

	}

}

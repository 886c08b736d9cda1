package io.batchconsumer.spring.jdbc;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.testing.Event;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole starter on the JDBC transport and a real H2 file database: JSON events sent in
 * batches arrive exactly once in the happy path; failing ones end in the dead-letter table and
 * the commit moves past them.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=h2-tests", "batch-consumer.retry.max-attempts=2",
		"batch-consumer.retry.backoff=1ms", "batch-consumer.retry.max-backoff=5ms",
		"batch-consumer.commit.interval=100ms", "batch-consumer.shutdown-timeout=10s" })
@Tag("integration")
class BatchConsumerH2Tests {

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Transport transport;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listeners listeners;

	@Autowired
	private JdbcTemplate jdbcTemplate;

	@Test
	void theJdbcTransportIsTheDefault() {
		assertThat(this.transport).isInstanceOf(JdbcTransport.class);
		assertThat(this.registry.getContainer("events").options().group()).isEqualTo("h2-tests");
	}

	@Test
	void everyEventSentInBatchesArrivesExactlyOnceConvertedFromJson() {
		List<SendResult> results = new ArrayList<>();
		for (int batch = 0; batch < 100; batch++) {
			int first = batch * 100;
			results.addAll(this.producer.sendBatch("events", IntStream.range(first, first + 100).mapToObj(Event::of).toList()));
		}
		assertThat(results).hasSize(10_000).allMatch(SendResult::isStored);
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(this.listeners.events).hasSize(10_000));
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertCommittedUpToEnd("events"));
		assertThat(this.listeners.events.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
		assertThat(this.listeners.events.keySet()).containsExactlyInAnyOrderElementsOf(
				IntStream.range(0, 10_000).mapToObj(Event::of).toList());
	}

	@Test
	void failingEventsEndInTheDeadLetterTableAndTheCommitMovesPastThem() {
		List<Event> events = IntStream.range(0, 500).mapToObj(Event::of).toList();
		this.producer.sendBatch("flaky", events);
		this.producer.send("flaky", "{broken json");
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
			assertThat(this.listeners.flaky).containsExactlyInAnyOrderElementsOf(
					events.stream().filter((event) -> !Listeners.fails(event)).toList());
			assertThat(deadLetters()).hasSize(51);
		});
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertCommittedUpToEnd("flaky"));
		List<Map<String, Object>> deadLetters = deadLetters();
		assertThat(deadLetters).allSatisfy((row) -> assertThat(row.get("ATTEMPTS")).isEqualTo(2));
		assertThat(deadLetters).filteredOn((row) -> "{broken json"
			.equals(new String((byte[]) row.get("PAYLOAD"), StandardCharsets.UTF_8)))
			.singleElement()
			.satisfies((row) -> assertThat(row.get("ERROR_CLASS")).asString().endsWith("PayloadConversionException"));
		assertThat(deadLetters).filteredOn((row) -> "java.lang.IllegalStateException".equals(row.get("ERROR_CLASS")))
			.hasSize(50);
	}

	private List<Map<String, Object>> deadLetters() {
		return this.jdbcTemplate.queryForList("SELECT * FROM bc_dead_letter WHERE topic = 'flaky'");
	}

	private void assertCommittedUpToEnd(String topic) {
		ContainerSnapshot stats = this.registry.getContainer(topic).stats();
		String group = this.registry.getContainer(topic).options().group();
		assertThat(stats.partitions()).isNotEmpty();
		for (PartitionSnapshot partition : stats.partitions()) {
			Long end = this.jdbcTemplate.queryForObject(
					"SELECT COALESCE(MAX(msg_offset) + 1, 0) FROM bc_message WHERE topic = ? AND queue_id = ?", Long.class,
					topic, partition.partition().partition());
			if (end > 0) {
				assertThat(partition.committedOffset()).as("committed offset of %s", partition.partition()).isEqualTo(end);
				assertThat(this.jdbcTemplate.queryForObject("SELECT next_offset FROM bc_consumer_offset WHERE "
						+ "group_id = ? AND topic = ? AND queue_id = ?", Long.class, group, topic,
						partition.partition().partition())).isEqualTo(end);
			}
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final Map<Event, AtomicInteger> events = new ConcurrentHashMap<>();

		final List<Event> flaky = java.util.Collections.synchronizedList(new ArrayList<>());

		static boolean fails(Event event) {
			return event.id() % 10 == 7;
		}

		@BatchListener(id = "events", topics = "events", ordering = "unordered")
		void onEvents(List<Event> batch) {
			batch.forEach((event) -> this.events.computeIfAbsent(event, (e) -> new AtomicInteger()).incrementAndGet());
		}

		@BatchListener(id = "flaky", topics = "flaky", group = "h2-flaky", threadSize = "${flaky.threads:4}")
		void onFlaky(Event event) {
			if (fails(event)) {
				throw new IllegalStateException("cannot process " + event);
			}
			this.flaky.add(event);
		}

	}

}

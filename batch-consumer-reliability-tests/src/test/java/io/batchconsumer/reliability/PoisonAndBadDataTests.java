package io.batchconsumer.reliability;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
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
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.json.JsonMapper;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Poison messages and bad data on H2 with JSON payloads: 1% of the payments make the listener
 * throw, some payloads are not JSON of a payment at all, and one payment of 200 KB is larger than
 * {@code flow-control.pull-threshold-size-for-queue} (64 KB). Exactly the failed ones reach the
 * dead-letter table, once each; every other message is processed once; every queue is committed
 * to its end and no partition holds a backlog.
 *
 * <p>Default run: 5,000 payments; soak run: 100,000.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=poison", "batch-consumer.retry.max-attempts=2",
		"batch-consumer.retry.backoff=1ms", "batch-consumer.retry.max-backoff=5ms",
		"batch-consumer.commit.interval=100ms", "batch-consumer.thread-size=4",
		"batch-consumer.flow-control.pull-threshold-size-for-queue=64KB" })
@DirtiesContext
@Tag("integration")
class PoisonAndBadDataTests {

	private static final String TOPIC = "payments";

	/** Payloads that are not a payment in JSON. */
	private static final List<String> MALFORMED = List.of("{broken", "[1, 2, 3", "{\"id\": \"not-a-number\"}",
			"not json at all", "{\"id\": 1, \"note\": ", "\u0000\u0001binary");

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listener listener;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private JsonMapper jsonMapper;

	@Test
	void exactlyTheFailedMessagesAreDeadLetteredAndTheCommitPassesThem() {
		long seed = Soak.seed("PoisonAndBadDataTests");
		Random random = new Random(seed);
		int count = Soak.pick(5_000, 100_000);
		int big = count;
		List<Object> messages = new ArrayList<>();
		IntStream.range(0, count).forEach((id) -> messages.add(OutgoingMessage.of("customer-" + (id % 50),
				new Payment(id, "payment " + id))));
		MALFORMED.forEach((raw) -> messages.add(random.nextInt(messages.size()), raw));
		messages.add(random.nextInt(messages.size()), new Payment(big, "x".repeat(200 * 1024)));
		for (int first = 0; first < messages.size(); first += 500) {
			assertThat(this.producer.sendBatch(TOPIC, messages.subList(first, Math.min(first + 500, messages.size()))))
				.allMatch(SendResult::isStored);
		}
		Set<Integer> failing = IntStream.range(0, count).filter(Listener::fails).boxed().collect(Collectors.toSet());
		Set<Integer> succeeding = IntStream.rangeClosed(0, count).filter((id) -> !Listener.fails(id)).boxed()
			.collect(Collectors.toSet());
		await().atMost(Duration.ofMinutes(3)).untilAsserted(() -> {
			assertThat(this.listener.processed.keySet()).containsExactlyInAnyOrderElementsOf(succeeding);
			assertThat(deadLetterCount()).isEqualTo(failing.size() + MALFORMED.size());
		});
		JdbcQueues queues = new JdbcQueues(this.jdbc);
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> queues.assertCommittedToTheEnd("poison", TOPIC));
		assertThat(this.listener.processed).as("each processed once, seed %d", seed)
			.allSatisfy((id, times) -> assertThat(times).hasValue(1));
		assertDeadLetters(failing);
		BatchContainer container = this.registry.getContainer(TOPIC);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(container.stats().partitions())
			.hasSize(4)
			.allSatisfy((partition) -> assertThat(partition.backlog()).as("backlog of %s", partition.partition()).isZero())
			.allSatisfy((partition) -> assertThat(partition.pausedByFlowControl()).isFalse()));
		assertThat(container.stats().messagesDeadLettered()).isEqualTo(failing.size() + MALFORMED.size());
		assertThat(container.stats().partitions()).extracting(PartitionSnapshot::committedOffset)
			.allSatisfy((offset) -> assertThat(offset).isPositive());
	}

	private void assertDeadLetters(Set<Integer> failing) {
		List<Map<String, Object>> rows = this.jdbc.queryForList(
				"SELECT payload, error_class, attempts FROM bc_dead_letter WHERE group_id = 'poison' AND topic = ?", TOPIC);
		List<Integer> thrown = new ArrayList<>();
		List<String> malformed = new ArrayList<>();
		for (Map<String, Object> row : rows) {
			String payload = new String((byte[]) row.get("PAYLOAD"), StandardCharsets.UTF_8);
			assertThat(row.get("ATTEMPTS")).as("attempts of %s", payload).isEqualTo(2);
			if ("java.lang.IllegalStateException".equals(row.get("ERROR_CLASS"))) {
				thrown.add(this.jsonMapper.readValue(payload, Payment.class).id());
			}
			else {
				assertThat((String) row.get("ERROR_CLASS")).endsWith("PayloadConversionException");
				malformed.add(payload);
			}
		}
		assertThat(thrown).as("payments the listener threw on, once each").doesNotHaveDuplicates()
			.containsExactlyInAnyOrderElementsOf(failing);
		assertThat(malformed).as("payloads that are no payment, once each")
			.containsExactlyInAnyOrderElementsOf(MALFORMED);
		assertThat(new HashSet<>(thrown)).doesNotContainAnyElementsOf(this.listener.processed.keySet());
	}

	private int deadLetterCount() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM bc_dead_letter WHERE topic = ?", Integer.class, TOPIC);
	}

	/**
	 * A payment in JSON.
	 * @param id its id
	 * @param note free text
	 */
	record Payment(int id, String note) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listener.class)
	static class TestApplication {

	}

	/** Throws on 1% of the payments; counts every other one. */
	@Component
	static class Listener {

		final Map<Integer, AtomicInteger> processed = new ConcurrentHashMap<>();

		static boolean fails(int id) {
			return id % 100 == 37;
		}

		@BatchListener(id = TOPIC, topics = TOPIC)
		void onPayment(Message<Payment> message) {
			Payment payment = message.payload();
			if (fails(payment.id())) {
				throw new IllegalStateException("payment " + payment.id() + " is poison");
			}
			this.processed.computeIfAbsent(payment.id(), (id) -> new AtomicInteger()).incrementAndGet();
		}

	}

}

package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
import org.springframework.test.annotation.DirtiesContext;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dead-letter table goes away (on H2: renamed) while a message fails every attempt: the
 * message is not committed — its queue's committed offset stays at or below its offset, while
 * the other queues move on — and nothing is counted as dead-lettered. When the table is back, the
 * message is written exactly once and the commit moves to the end.
 *
 * <p>Default run: the table is away for 3 s; soak run: 20 s.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=dead-letter-down", "batch-consumer.retry.max-attempts=2",
		"batch-consumer.retry.backoff=1ms", "batch-consumer.retry.max-backoff=200ms",
		"batch-consumer.commit.interval=50ms", "batch-consumer.ordering=unordered" })
@DirtiesContext
@Tag("integration")
class DeadLetterOutageTests {

	private static final String TOPIC = "transfers";

	private static final String GROUP = "dead-letter-down";

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listener listener;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void whenTheDeadLetterWriteFailsThenTheMessageIsNotCommittedAndIsWrittenOnceItRecovers() {
		Duration away = Duration.ofSeconds(Soak.pick(3, 20));
		BatchContainer container = this.registry.getContainer(TOPIC);
		this.jdbc.execute("ALTER TABLE bc_dead_letter RENAME TO bc_dead_letter_off");
		List<String> payloads = new ArrayList<>();
		IntStream.range(0, 40).forEach((i) -> payloads.add("ok-" + i));
		payloads.add(20, "poison");
		List<SendResult> results = this.producer.sendBatch(TOPIC, payloads);
		assertThat(results).allMatch(SendResult::isStored);
		SendResult poison = results.get(20);
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(this.listener.ok).hasSize(40);
			assertThat(this.listener.attempts.get("poison")).hasValueGreaterThanOrEqualTo(2);
		});
		JdbcQueues queues = new JdbcQueues(this.jdbc);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> queues.ends(TOPIC).forEach((queue, end) -> {
			if (queue != poison.partition()) {
				assertThat(queues.committed(GROUP, TOPIC, queue)).as("queue %d", queue).isEqualTo(end);
			}
		}));
		await().during(away).atMost(away.plusSeconds(5)).untilAsserted(() -> {
			assertThat(queues.committed(GROUP, TOPIC, poison.partition())).isLessThanOrEqualTo(poison.offset());
			assertThat(container.stats().partitions())
				.filteredOn((partition) -> partition.partition().partition() == poison.partition())
				.singleElement()
				.satisfies((partition) -> assertThat(partition.committedOffset()).isLessThanOrEqualTo(poison.offset()));
			assertThat(container.stats().messagesDeadLettered()).isZero();
		});
		this.jdbc.execute("ALTER TABLE bc_dead_letter_off RENAME TO bc_dead_letter");
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> queues.assertCommittedToTheEnd(GROUP, TOPIC));
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(this.jdbc
			.queryForList("SELECT queue_id, msg_offset, attempts FROM bc_dead_letter WHERE topic = ?", TOPIC))
			.singleElement()
			.satisfies((row) -> assertThat(row).containsEntry("QUEUE_ID", poison.partition())
				.containsEntry("MSG_OFFSET", poison.offset())
				.containsEntry("ATTEMPTS", 2)));
		assertThat(container.stats().messagesDeadLettered()).isOne();
		assertThat(this.listener.attempts.get("poison")).hasValue(2);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listener.class)
	static class TestApplication {

	}

	/** Fails the message {@code poison} on every attempt. */
	@Component
	static class Listener {

		final Set<String> ok = ConcurrentHashMap.newKeySet();

		final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

		@BatchListener(id = TOPIC, topics = TOPIC)
		void onTransfer(String payload) {
			this.attempts.computeIfAbsent(payload, (key) -> new AtomicInteger()).incrementAndGet();
			if (payload.equals("poison")) {
				throw new IllegalStateException("cannot transfer");
			}
			this.ok.add(payload);
		}

	}

}

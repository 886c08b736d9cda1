package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a web application with Actuator and the starter exposes with default settings: the
 * {@code batchconsumer} write operations (pause, resume, seek) are not reachable over HTTP; no
 * payload reaches the logs at INFO, even when messages fail, are malformed, carry their payload in
 * the exception message, or cannot be dead-lettered for a while; a listener's very long error
 * message is stored bounded in the dead-letter table.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=exposure", "logging.level.root=INFO",
				"logging.level.io.batchconsumer=INFO", "batch-consumer.retry.max-attempts=2",
				"batch-consumer.retry.backoff=1ms", "batch-consumer.retry.max-backoff=50ms",
				"batch-consumer.commit.interval=100ms" })
@AutoConfigureRestTestClient
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
@Tag("integration")
class ExposureTests {

	private static final String MARKER = "PAYLOAD-MARKER-" + UUID.randomUUID();

	@Autowired
	private RestTestClient http;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listeners listeners;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void theWriteOperationsAreNotReachableOverHttpByDefault() {
		this.http.get().uri("/actuator/health").exchange().expectStatus().isOk();
		for (String operation : List.of("pause", "resume", "seek")) {
			this.http.post()
				.uri("/actuator/batchconsumer/events/" + operation)
				.contentType(MediaType.APPLICATION_JSON)
				.body("{\"topic\": \"events\", \"partition\": 0, \"offset\": 0}")
				.exchange()
				.expectStatus()
				.isNotFound();
		}
		this.http.get().uri("/actuator/batchconsumer").exchange().expectStatus().isNotFound();
		assertThat(this.registry.getContainer("events").stats().state()).isEqualTo(LifecyclePhase.RUNNING);
	}

	@Test
	void noPayloadAppearsInTheLogsAtInfo(CapturedOutput output) {
		assertThat(LoggerFactory.getLogger("io.batchconsumer.core.internal.SliceRunner").isInfoEnabled()).isTrue();
		this.jdbc.execute("ALTER TABLE bc_dead_letter RENAME TO bc_dead_letter_off");
		List<Object> messages = new ArrayList<>();
		IntStream.range(0, 200).forEach((i) -> messages.add(new Event("e" + i, MARKER + " text of " + i)));
		messages.add("{\"id\": \"broken\", \"text\": \"" + MARKER);
		messages.add(MARKER);
		assertThat(this.producer.sendBatch("events", messages)).allMatch(SendResult::isStored);
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(output.getAll()).contains("Dead-letter write of Message[events-"));
		this.jdbc.execute("ALTER TABLE bc_dead_letter_off RENAME TO bc_dead_letter");
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
			assertThat(this.listeners.events).as("processed; %s; dead letters %d",
					this.registry.getContainer("events").stats(), deadLetters("events")).hasSize(180);
			assertThat(deadLetters("events")).isEqualTo(22);
		});
		assertThat(output.getAll()).contains("Dead-letter write of").doesNotContain(MARKER);
	}

	@Test
	void aLongErrorMessageIsStoredBounded() {
		this.producer.send("long-errors", "anything");
		await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters("long-errors") == 1);
		String stored = this.jdbc.queryForObject("SELECT error_message FROM bc_dead_letter WHERE topic = 'long-errors'",
				String.class);
		assertThat(stored).startsWith("xxxx");
		assertThat(stored.length()).isLessThanOrEqualTo(1000);
	}

	private int deadLetters(String topic) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM bc_dead_letter WHERE topic = ?", Integer.class, topic);
	}

	/**
	 * An event in JSON.
	 * @param id its id
	 * @param text free text, which carries the marker
	 */
	record Event(String id, String text) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	/** One event in ten fails with the whole event in its message; long errors fail with 10,000 characters. */
	@Component
	static class Listeners {

		final Set<String> events = ConcurrentHashMap.newKeySet();

		@BatchListener(id = "events", topics = "events")
		void onEvent(Event event) {
			if (event.id().endsWith("7")) {
				throw new IllegalStateException("cannot handle " + event);
			}
			this.events.add(event.id());
		}

		@BatchListener(id = "long-errors", topics = "long-errors")
		void onLongError(String payload) {
			throw new IllegalStateException("x".repeat(10_000));
		}

	}

}

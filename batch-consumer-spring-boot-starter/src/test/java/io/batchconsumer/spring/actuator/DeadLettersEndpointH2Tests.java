package io.batchconsumer.spring.actuator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code deadletters} endpoint over HTTP with replay allowed, on the JDBC transport and an H2
 * file database: a WARN line per dead letter without its payload, the dead letters listed (paged,
 * without payloads) and shown (payload as text), and one replayed to its topic and marked.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=dead-letter-tests",
				"management.endpoints.web.exposure.include=health,batchconsumer,deadletters",
				"management.endpoint.deadletters.access=unrestricted", "batch-consumer.retry.max-attempts=1",
				"batch-consumer.commit.interval=100ms", "batch-consumer.shutdown-timeout=5s",
				"server.error.include-message=always" })
@AutoConfigureRestTestClient
@ExtendWith(OutputCaptureExtension.class)
@Tag("integration")
class DeadLettersEndpointH2Tests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Autowired
	private RestTestClient restTestClient;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	private ActuatorClient actuator;

	@BeforeEach
	void client() {
		this.actuator = new ActuatorClient(this.restTestClient);
	}

	@Test
	void deadLettersAreLoggedListedShownAndReplayed(CapturedOutput output) {
		this.producer.sendBatchOrThrow("payments", IntStream.range(0, 10)
			.mapToObj((i) -> OutgoingMessage.of("customer-" + i, ((i % 3 == 1) ? "poison-" : "fine-") + i))
			.toList());
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.actuator.get("/actuator/deadletters")
			.body().at("/listeners/payments/total").asLong()).isEqualTo(3));
		await().atMost(WAIT).until(() -> this.listeners.received.size() == 7);
		assertThat(output.getOut()).contains("Listener 'payments' dead-lettered topic payments partition ")
			.doesNotContain("poison-");

		JsonNode firstPage = this.actuator.get("/actuator/deadletters/payments?size=2").body();
		assertThat(firstPage.path("total").asLong()).isEqualTo(3);
		assertThat(firstPage.path("deadLetters")).hasSize(2);
		assertThat(firstPage.at("/deadLetters/0/payloadText").isValueNode()).as("a page shows no payload: %s", firstPage).isFalse();
		assertThat(firstPage.at("/deadLetters/0/payloadBytes").asInt()).isEqualTo("poison-n".length());
		assertThat(this.actuator.get("/actuator/deadletters/payments?page=1&size=2").body().path("deadLetters")).hasSize(1);
		assertThat(this.actuator.get("/actuator/deadletters/payments?size=0").status()).isEqualTo(400);

		String id = firstPage.at("/deadLetters/0/id").asString();
		JsonNode shown = this.actuator.get("/actuator/deadletters/payments/" + id).body();
		String payload = shown.path("payloadText").asString();
		assertThat(payload).isIn("poison-1", "poison-4", "poison-7");
		String n = payload.substring("poison-".length());
		assertThat(shown.path("key").asString()).isEqualTo("customer-" + n);
		assertThat(shown.path("errorClass").asString()).isEqualTo(IllegalArgumentException.class.getName());
		assertThat(shown.path("errorMessage").asString()).isEqualTo("cannot bill " + n);
		assertThat(shown.has("replayedAt")).as("not replayed: left out, not null").isFalse();
		assertThat(this.actuator.get("/actuator/deadletters/payments/424242").status()).isEqualTo(404);
		assertThat(this.actuator.get("/actuator/deadletters/nobody").status()).isEqualTo(404);

		this.listeners.rejecting.set(false);
		JsonNode replay = this.actuator.post("/actuator/deadletters/payments/replay", Map.of("ids", id + ", 424242," + id))
			.body();
		assertThat(replay.path("results")).as("an id given twice is replayed once: %s", replay).hasSize(2);
		assertThat(replay.at("/results/0/outcome").asString()).as("%s", replay).isEqualTo("REPLAYED");
		assertThat(replay.at("/results/0/topic").asString()).isEqualTo("payments");
		assertThat(replay.at("/results/1/outcome").asString()).isEqualTo("NOT_FOUND");
		await().atMost(WAIT).until(() -> this.listeners.received.contains(payload));
		assertThat(this.actuator.get("/actuator/deadletters/payments/" + id).body().path("replayedAt").asString())
			.isNotBlank();
		assertThat(this.actuator.post("/actuator/deadletters/payments/replay", Map.of("ids", "")).status())
			.isEqualTo(400);
		assertThat(this.actuator.post("/actuator/deadletters/payments/forget", Map.of("ids", id)).status())
			.isEqualTo(400);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final AtomicBoolean rejecting = new AtomicBoolean(true);

		final List<String> received = new CopyOnWriteArrayList<>();

		@BatchListener(id = "payments", topics = "payments")
		BatchResult onPayments(List<String> payments) {
			BatchResult.Builder result = BatchResult.builder();
			for (int i = 0; i < payments.size(); i++) {
				String payment = payments.get(i);
				if (this.rejecting.get() && payment.startsWith("poison-")) {
					result.fail(i, new IllegalArgumentException("cannot bill " + payment.substring("poison-".length())));
				}
				else {
					this.received.add(payment);
				}
			}
			return result.build();
		}

	}

}

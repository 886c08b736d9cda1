package io.batchconsumer.spring.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.SharedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code deadletters} endpoint over HTTP on the Kafka transport and an in-process broker: dead
 * letters of {@code <topic>.DLQ} listed, shown by their {@code <dlq>:<partition>:<offset>} id and
 * replayed to the original topic.
 */
@SharedKafkaBroker(partitions = 2, topics = "refunds")
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=kafka-dead-letter-tests", "batch-consumer.transport=kafka",
				"batch-consumer.retry.max-attempts=1",
				"batch-consumer.commit.interval=100ms", "batch-consumer.shutdown-timeout=10s",
				"management.endpoints.web.exposure.include=deadletters",
				"management.endpoint.deadletters.access=unrestricted" })
@AutoConfigureRestTestClient
@Tag("integration")
class DeadLettersEndpointKafkaTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	@Autowired
	private RestTestClient client;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Refunds refunds;

	@Test
	void deadLettersOfTheDeadLetterTopicAreListedShownAndReplayed() {
		this.producer.sendBatchOrThrow("refunds", List.of("fine-1", "poison-2", "fine-3"));
		await().atMost(WAIT).untilAsserted(() -> assertThat(get("/actuator/deadletters/refunds").path("total").asLong())
			.isEqualTo(1));
		String id = get("/actuator/deadletters/refunds").at("/deadLetters/0/id").asString();
		assertThat(id).startsWith("refunds.DLQ:");
		JsonNode shown = get("/actuator/deadletters/refunds/" + id);
		assertThat(shown.path("payloadText").asString()).isEqualTo("poison-2");
		assertThat(shown.path("topic").asString()).isEqualTo("refunds");
		assertThat(shown.path("errorClass").asString()).isEqualTo(IllegalStateException.class.getName());
		String partition = id.substring(0, id.lastIndexOf(':'));
		for (String unknown : List.of("refunds.DLQ:99:0", partition + ":424242", partition + ":-1", "orders.DLQ:0:0",
				"refunds.DLQ:0", "nonsense")) {
			assertThat(this.client.get().uri("/actuator/deadletters/refunds/" + unknown).exchange().returnResult()
				.getStatus()
				.value()).as(unknown).isEqualTo(404);
		}

		this.refunds.rejecting.set(false);
		JsonNode replay = this.client.post()
			.uri("/actuator/deadletters/refunds/replay")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("ids", id))
			.exchange()
			.returnResult(JsonNode.class)
			.getResponseBody();
		assertThat(replay.at("/results/0/outcome").asString()).as("%s", replay).isEqualTo("REPLAYED");
		await().atMost(WAIT).until(() -> this.refunds.received.contains("poison-2"));
		await().atMost(WAIT).untilAsserted(() -> assertThat(get("/actuator/deadletters/refunds/" + id)
			.path("replayedAt").asString()).isNotBlank());
	}

	private JsonNode get(String path) {
		return this.client.get().uri(path).exchange().returnResult(JsonNode.class).getResponseBody();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Refunds.class)
	static class TestApplication {

	}

	@Component
	static class Refunds {

		final AtomicBoolean rejecting = new AtomicBoolean(true);

		final List<String> received = new CopyOnWriteArrayList<>();

		@BatchListener(id = "refunds", topics = "refunds")
		void onRefund(String refund) {
			if (this.rejecting.get() && refund.startsWith("poison-")) {
				throw new IllegalStateException("cannot refund");
			}
			this.received.add(refund);
		}

	}

}

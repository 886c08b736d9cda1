package io.batchconsumer.spring.kafka;

import java.time.Duration;
import java.util.List;

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
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.SharedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listing and showing dead letters on Kafka over HTTP, request after request, keeps the log quiet at
 * INFO: no consumer configuration dump and no "Not updating high watermark" warning per request.
 * The Kafka client loggers are at INFO here, as in an application that does not set them.
 */
@SharedKafkaBroker(partitions = 2, topics = "quiet")
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=kafka-dead-letter-listing", "batch-consumer.transport=kafka",
				"batch-consumer.retry.max-attempts=1", "batch-consumer.shutdown-timeout=10s",
				"management.endpoints.web.exposure.include=deadletters",
				"logging.level.org.apache.kafka.clients=INFO", "logging.level.org.apache.kafka.common=INFO" })
@AutoConfigureRestTestClient
@ExtendWith(OutputCaptureExtension.class)
@Tag("integration")
class DeadLettersListingKafkaTests {

	private static final int REQUESTS = 5;

	@Autowired
	private RestTestClient client;

	@Autowired
	private BatchProducer producer;

	@Test
	void listingAndShowingAgainLogNothingOfTheKafkaClient(CapturedOutput output) {
		this.producer.sendBatchOrThrow("quiet", List.of("poison-1", "poison-2", "poison-3"));
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(get("/actuator/deadletters/quiet").path("total").asLong()).isEqualTo(3));
		String id = get("/actuator/deadletters/quiet").at("/deadLetters/0/id").asString();
		int before = output.getAll().length();
		long started = System.nanoTime();
		for (int i = 0; i < REQUESTS; i++) {
			assertThat(get("/actuator/deadletters/quiet").path("total").asLong()).isEqualTo(3);
			assertThat(get("/actuator/deadletters").at("/listeners/quiet/total").asLong()).isEqualTo(3);
			assertThat(get("/actuator/deadletters/quiet/" + id).path("payloadText").asString()).startsWith("poison-");
		}
		long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
		System.out.printf("%d rounds of list, count and show of dead letters on Kafka: %d ms, %d ms a request%n",
				REQUESTS, millis, millis / (3 * REQUESTS));
		String logged = output.getAll().substring(before);
		assertThat(logged).doesNotContain("ConsumerConfig values")
			.doesNotContain("Not updating high watermark")
			.doesNotContain("Not updating last stable offset")
			.doesNotContain("Kafka version");
	}

	private JsonNode get(String path) {
		return this.client.get().uri(path).exchange().returnResult(JsonNode.class).getResponseBody();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Quiet.class)
	static class TestApplication {

	}

	@Component
	static class Quiet {

		@BatchListener(id = "quiet", topics = "quiet")
		void onMessage(String message) {
			throw new IllegalStateException("rejects " + message);
		}

	}

}

package io.batchconsumer.spring.actuator;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code tune} write operation of the {@code batchconsumer} endpoint over HTTP, on the JDBC
 * transport and an H2 file database: every tunable option changed while the listener is busy, each
 * message delivered exactly once, the new values in force and shown as {@code RUNTIME}; a bad value
 * changes nothing.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=tune-tests", "management.endpoints.web.exposure.include=batchconsumer",
				"management.endpoint.batchconsumer.access=unrestricted", "batch-consumer.jdbc.queues-per-topic=2",
				"batch-consumer.commit.interval=50ms", "batch-consumer.shutdown-timeout=5s",
				"batch-consumer.listeners.tuned.thread-size=2", "batch-consumer.listeners.tuned.consumer-batch-size=5" })
@AutoConfigureRestTestClient
@Tag("integration")
class BatchConsumerEndpointTuneH2Tests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final int MESSAGES = 600;

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
	void tuneChangesEveryTunableOptionWhileTheListenerIsBusyWithoutLosingOrRepeatingAMessage() {
		this.producer.sendBatch("tuned", IntStream.range(0, MESSAGES).mapToObj((i) -> "t-" + i).toList());
		await().atMost(WAIT).until(() -> this.listeners.deliveries.size() > 50);
		ActuatorClient.Response tuned = this.actuator.post("/actuator/batchconsumer/tuned/tune",
				Map.of("threadSize", 4, "consumerBatchSize", 20, "pullBatchSize", 64, "pullThresholdForQueue", 300,
						"pullThresholdSizeForQueue", 5_000_000, "maxSpan", 900, "pullThresholdForContainer", 700,
						"pullThresholdSizeForContainer", 6_000_000));
		assertThat(tuned.status()).isEqualTo(200);
		assertThat(tuned.body().path("changed").path("thread-size").asString()).isEqualTo("4");
		await().atMost(WAIT).until(() -> this.listeners.deliveries.size() == MESSAGES);
		assertThat(this.listeners.deliveries.values()).allMatch((count) -> count.get() == 1);
		JsonNode listener = this.actuator.get("/actuator/batchconsumer/tuned").body();
		assertThat(listener.path("threadSize").asInt()).isEqualTo(4);
		JsonNode options = listener.path("options");
		assertThat(options.path("thread-size").path("value").asString()).isEqualTo("4");
		assertThat(options.path("thread-size").path("source").asString()).isEqualTo("RUNTIME");
		assertThat(options.path("consumer-batch-size").path("value").asString()).isEqualTo("20");
		assertThat(options.path("pull-batch-size").path("value").asString()).isEqualTo("64");
		assertThat(options.path("flow-control.pull-threshold-for-queue").path("value").asString()).isEqualTo("300");
		assertThat(options.path("flow-control.pull-threshold-size-for-queue").path("value").asString())
			.isEqualTo("5000000");
		assertThat(options.path("flow-control.max-span").path("value").asString()).isEqualTo("900");
		assertThat(options.path("flow-control.pull-threshold-for-container").path("value").asString())
			.isEqualTo("700");
		assertThat(options.path("flow-control.pull-threshold-size-for-container").path("value").asString())
			.isEqualTo("6000000");
	}

	@Test
	void aBadValueOrAnOptionThatIsNotTunableChangesNothing() {
		ActuatorClient.Response bad = this.actuator.post("/actuator/batchconsumer/tuned/tune",
				Map.of("threadSize", 3, "consumerBatchSize", 0));
		assertThat(bad.status()).isEqualTo(400);
		ActuatorClient.Response none = this.actuator.post("/actuator/batchconsumer/tuned/tune", Map.of());
		assertThat(none.status()).isEqualTo(400);
		JsonNode listener = this.actuator.get("/actuator/batchconsumer/tuned").body();
		assertThat(listener.path("threadSize").asInt()).isIn(2, 4);
		assertThat(listener.path("options").path("thread-size").path("value").asString()).isNotEqualTo("3");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

		@BatchListener(id = "tuned", topics = "tuned")
		void onTuned(java.util.List<String> payloads) throws InterruptedException {
			// Busy: an I/O-like wait per slice.
			Thread.sleep(5);
			payloads.forEach((payload) -> this.deliveries.computeIfAbsent(payload, (p) -> new AtomicInteger())
				.incrementAndGet());
		}

	}

}

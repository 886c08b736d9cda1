package io.batchconsumer.spring.actuator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
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
 * The rate limit and batches that wait to fill through the starter, on the JDBC transport and an H2
 * file database: {@code rateLimit} on {@code @BatchListener} holds the listener back (counted on the
 * meter and the endpoint) until the endpoint's {@code tune} lifts it; the batch options from
 * properties reach the container and shape the calls; in {@code key} order a key whose message waits in
 * the retry queue holds its later messages back, shown on the endpoint and the meters.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=rate-tests", "management.endpoints.web.exposure.include=batchconsumer",
				"management.endpoint.batchconsumer.access=unrestricted", "batch-consumer.jdbc.queues-per-topic=1",
				"batch-consumer.commit.interval=50ms", "batch-consumer.shutdown-timeout=5s",
				"batch-consumer.listeners.bulk.consumer-batch-size=40",
				"batch-consumer.listeners.bulk.consumer-batch-min-size=40",
				"batch-consumer.listeners.bulk.consumer-batch-max-wait=1h",
				"batch-consumer.listeners.bulk.consumer-batch-max-bytes=1MB",
				"batch-consumer.listeners.held.retry.levels=1500ms", "batch-consumer.listeners.held.retry.max-attempts=2" })
@AutoConfigureRestTestClient
@Tag("integration")
class RateLimitAndBatchFillH2Tests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Autowired
	private RestTestClient restTestClient;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	@Autowired
	private MeterRegistry meters;

	@Test
	void aRateLimitOnTheAnnotationHoldsTheListenerBackUntilTheEndpointLiftsIt() {
		ActuatorClient actuator = new ActuatorClient(this.restTestClient);
		this.producer.sendBatch("limited", IntStream.range(0, 200).mapToObj((i) -> "l-" + i).toList());
		await().atMost(WAIT).until(() -> actuator.get("/actuator/batchconsumer/limited").body()
			.path("counters").path("rateLimitHolds").asLong() > 0);
		assertThat(this.listeners.limited.size()).as("one message a second").isLessThan(200);
		assertThat(this.meters.get("batch.consumer.rate.limit.holds").tag("listener", "limited").functionCounter()
			.count()).isPositive();

		ActuatorClient.Response tuned = actuator.post("/actuator/batchconsumer/limited/tune", Map.of("rateLimit", 0));
		assertThat(tuned.status()).isEqualTo(200);
		await().atMost(WAIT).until(() -> this.listeners.limited.size() == 200);
		JsonNode options = actuator.get("/actuator/batchconsumer/limited").body().path("options");
		assertThat(options.path("rate-limit").path("value").asString()).isEqualTo("0");
		assertThat(options.path("rate-limit").path("source").asString()).isEqualTo("RUNTIME");
	}

	@Test
	void batchOptionsFromPropertiesShapeTheCalls() {
		this.producer.sendBatch("bulk", IntStream.range(0, 120).mapToObj((i) -> "b-" + i).toList());
		await().atMost(WAIT).until(() -> this.listeners.bulk.stream().mapToInt(List::size).sum() == 120);
		assertThat(this.listeners.bulk).extracting(List::size).containsOnly(40);
	}

	@Test
	void aKeyInTheRetryQueueHoldsItsLaterMessagesShownOnTheEndpointAndTheMeters() {
		ActuatorClient actuator = new ActuatorClient(this.restTestClient);
		this.producer.send("held", "poison", "poison-1");
		await().atMost(WAIT).until(() -> counters(actuator, "held").path("keysHeldForRetry").asLong() == 1);
		this.producer.send("held", "poison", "poison-2");
		this.producer.send("held", "other", "other-1");
		await().atMost(WAIT).until(() -> this.listeners.held.contains("other-1")
				&& counters(actuator, "held").path("messagesHeldForRetry").asLong() == 1);
		assertThat(this.meters.get("batch.consumer.retry.queue.held.keys").tag("listener", "held").gauge().value())
			.isEqualTo(1);
		assertThat(this.meters.get("batch.consumer.retry.queue.held.messages").tag("listener", "held").gauge().value())
			.isEqualTo(1);
		assertThat(this.listeners.held).doesNotContain("poison-2");
		// poison-1 fails its retry too and is dead-lettered: then poison-2 goes on.
		await().atMost(WAIT).until(() -> this.listeners.held.contains("poison-2"));
		await().atMost(WAIT).until(() -> counters(actuator, "held").path("keysHeldForRetry").asLong() == 0);
	}

	private static JsonNode counters(ActuatorClient actuator, String id) {
		return actuator.get("/actuator/batchconsumer/" + id).body().path("counters");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Component
	static class Listeners {

		final Map<String, AtomicInteger> limited = new ConcurrentHashMap<>();

		final List<List<String>> bulk = new CopyOnWriteArrayList<>();

		@BatchListener(id = "limited", topics = "limited", ordering = "unordered", rateLimit = "1")
		void onLimited(List<String> payloads) {
			payloads.forEach((payload) -> this.limited.computeIfAbsent(payload, (p) -> new AtomicInteger())
				.incrementAndGet());
		}

		final List<String> held = new CopyOnWriteArrayList<>();

		@BatchListener(id = "held", topics = "held", ordering = "key")
		void onHeld(String payload) {
			if (payload.equals("poison-1")) {
				throw new IllegalStateException("poisoned");
			}
			this.held.add(payload);
		}

		@BatchListener(id = "bulk", topics = "bulk", ordering = "unordered")
		void onBulk(List<String> payloads) {
			this.bulk.add(List.copyOf(payloads));
		}

	}

}

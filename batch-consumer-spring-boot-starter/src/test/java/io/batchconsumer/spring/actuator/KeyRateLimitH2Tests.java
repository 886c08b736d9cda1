package io.batchconsumer.spring.actuator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

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
import tools.jackson.databind.JsonNode;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The per-key rate limit through the starter, on the JDBC transport and an H2 file database:
 * {@code rateLimitPerKey} on {@code @BatchListener} holds a hot key to its rate while the other keys'
 * messages all go through at once, counted on the meter and the endpoint, shown as slices waiting for
 * their key's rate, until the endpoint's {@code tune} lifts it.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=key-rate-tests",
				"management.endpoints.web.exposure.include=batchconsumer",
				"management.endpoint.batchconsumer.access=unrestricted", "batch-consumer.jdbc.queues-per-topic=1",
				"batch-consumer.commit.interval=50ms", "batch-consumer.shutdown-timeout=5s" })
@AutoConfigureRestTestClient
@Tag("integration")
class KeyRateLimitH2Tests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final int RATE = 5;

	@Autowired
	private RestTestClient restTestClient;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	@Autowired
	private MeterRegistry meters;

	@Test
	void aHotKeyGoesAtItsRateWhileOtherKeysGoAtOnceUntilTheEndpointLiftsTheLimit() {
		ActuatorClient actuator = new ActuatorClient(this.restTestClient);
		List<OutgoingMessage> messages = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			// Half of them the hot key's; the others spread over 50 keys, 2 each: under the rate.
			messages.add((i % 2 == 0) ? OutgoingMessage.of("hot", "hot-" + i)
					: OutgoingMessage.of("cold-" + (i % 100), "cold-" + i));
		}
		long startNanos = System.nanoTime();
		this.producer.sendBatch("calls", messages);

		await().atMost(WAIT).until(() -> this.listeners.cold.get() == 100);
		double seconds = (System.nanoTime() - startNanos) / 1e9;
		assertThat(this.listeners.hot.get()).as("a bucket plus the rate for %.2f s", seconds)
			.isLessThanOrEqualTo((int) (RATE + RATE * seconds));
		assertThat(this.listeners.hot.get()).as("held while the other keys went").isLessThan(100);
		await().atMost(WAIT).until(() -> counters(actuator).path("keyRateLimitHolds").asLong() > 0);
		assertThat(this.meters.get("batch.consumer.key.rate.limit.holds").tag("listener", "calls").functionCounter()
			.count()).isPositive();
		await().atMost(WAIT).until(() -> slicesWaitingForRate(actuator) > 0);
		await().atMost(WAIT).alias("it goes on at its rate").until(() -> this.listeners.hot.get() > RATE);

		ActuatorClient.Response tuned = actuator.post("/actuator/batchconsumer/calls/tune",
				Map.of("rateLimitPerKey", 0));
		assertThat(tuned.status()).isEqualTo(200);
		await().atMost(WAIT).until(() -> this.listeners.hot.get() == 100);
		JsonNode options = actuator.get("/actuator/batchconsumer/calls").body().path("options");
		assertThat(options.path("rate-limit-per-key").path("value").asString()).isEqualTo("0");
		assertThat(options.path("rate-limit-per-key").path("source").asString()).isEqualTo("RUNTIME");
	}

	private static JsonNode counters(ActuatorClient actuator) {
		return actuator.get("/actuator/batchconsumer/calls").body().path("counters");
	}

	private static int slicesWaitingForRate(ActuatorClient actuator) {
		int waiting = 0;
		for (JsonNode partition : actuator.get("/actuator/batchconsumer/calls").body().path("partitions")) {
			for (JsonNode batch : partition.path("batches")) {
				for (JsonNode slice : batch.path("slices")) {
					waiting += "WAITING_FOR_RATE".equals(slice.path("state").asString()) ? 1 : 0;
				}
			}
		}
		return waiting;
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

		final AtomicInteger hot = new AtomicInteger();

		final AtomicInteger cold = new AtomicInteger();

		@BatchListener(id = "calls", topics = "calls", ordering = "key", rateLimitPerKey = "5")
		void onCall(String payload) {
			(payload.startsWith("hot") ? this.hot : this.cold).incrementAndGet();
		}

	}

}

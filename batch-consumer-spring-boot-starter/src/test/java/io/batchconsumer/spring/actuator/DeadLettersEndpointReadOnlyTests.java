package io.batchconsumer.spring.actuator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

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

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With default access the {@code deadletters} endpoint, even exposed, only reads: a replay is not
 * reachable over HTTP and nothing is sent again.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=dead-letter-read-only-tests",
				"management.endpoints.web.exposure.include=deadletters", "batch-consumer.retry.max-attempts=1",
				"batch-consumer.shutdown-timeout=5s" })
@AutoConfigureRestTestClient
@Tag("integration")
class DeadLettersEndpointReadOnlyTests {

	@Autowired
	private RestTestClient restTestClient;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	@Test
	void theReplayIsNotReachableAndSendsNothing() {
		ActuatorClient actuator = new ActuatorClient(this.restTestClient);
		this.producer.send("orders", "poison");
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(actuator
			.get("/actuator/deadletters/orders").body().path("total").asLong()).isEqualTo(1));
		String id = actuator.get("/actuator/deadletters/orders").body().at("/deadLetters/0/id").asString();
		assertThat(actuator.post("/actuator/deadletters/orders/replay", Map.of("ids", id)).status())
			.as("a write operation without write access: 405, as docs/dead-letters.md says")
			.isEqualTo(405);
		assertThat(actuator.get("/actuator/deadletters/orders/" + id).body().has("replayedAt"))
			.as("not replayed: left out, not null").isFalse();
		assertThat(this.listeners.calls).containsExactly("poison");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@BatchListener(id = "orders", topics = "orders")
		void onOrder(String payload) {
			this.calls.add(payload);
			throw new IllegalStateException("always fails");
		}

	}

}

package io.batchconsumer.spring.actuator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

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

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With default settings the {@code batchconsumer} endpoint, even exposed, is read-only: its write
 * operations are not reachable over HTTP.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=read-only-tests",
				"management.endpoints.web.exposure.include=health,batchconsumer", "batch-consumer.shutdown-timeout=5s" })
@AutoConfigureRestTestClient
@Tag("integration")
class BatchConsumerEndpointReadOnlyTests {

	@Autowired
	private RestTestClient restTestClient;

	@Autowired
	private BatchListenerContainerRegistry containers;

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
	void theReadOperationsAnswer() {
		ActuatorClient.Response all = this.actuator.get("/actuator/batchconsumer");
		assertThat(all.status()).isEqualTo(200);
		assertThat(all.body().path("listeners").has("orders")).isTrue();
		assertThat(this.actuator.get("/actuator/batchconsumer/orders").body().path("id").asString()).isEqualTo("orders");
	}

	@Test
	void theWriteOperationsAreNotReachableAndChangeNothing() {
		for (String operation : List.of("pause", "resume", "seek")) {
			int status = this.actuator
				.post("/actuator/batchconsumer/orders/" + operation, Map.of("topic", "orders", "partition", 0, "offset", 0))
				.status();
			assertThat(status).as(operation).isBetween(400, 499);
		}
		assertThat(this.containers.getContainer("orders").stats().state()).isEqualTo(LifecyclePhase.RUNNING);
		this.producer.send("orders", "still delivered");
		await().atMost(Duration.ofSeconds(20)).until(() -> this.listeners.received.contains("still delivered"));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final List<String> received = new CopyOnWriteArrayList<>();

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(String payload) {
			this.received.add(payload);
		}

	}

}

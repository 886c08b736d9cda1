package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two listeners of one application on different topics share the default consumer group
 * ({@code spring.application.name}): each must still own every queue of its own topic, or the
 * queues left to the other listener — which never subscribes to them — are never consumed.
 */
@H2FileDatabase
@SpringBootTest(properties = "spring.application.name=shared-group")
@DirtiesContext
@Tag("integration")
class SharedGroupTests {

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listeners listeners;

	@Test
	void twoListenersInOneGroupEachOwnEveryQueueOfTheirTopic() {
		List<String> payloads = IntStream.range(0, 100).mapToObj((i) -> "p" + i).toList();
		this.producer.sendBatch("orders", payloads);
		this.producer.sendBatch("refunds", payloads);
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(this.registry.getContainer("orders").stats().partitions()).hasSize(4);
			assertThat(this.registry.getContainer("refunds").stats().partitions()).hasSize(4);
			assertThat(this.listeners.orders).hasSize(100);
			assertThat(this.listeners.refunds).hasSize(100);
		});
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	/** Two listeners, one group. */
	@Component
	static class Listeners {

		final Set<String> orders = ConcurrentHashMap.newKeySet();

		final Set<String> refunds = ConcurrentHashMap.newKeySet();

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(List<String> payloads) {
			this.orders.addAll(payloads);
		}

		@BatchListener(id = "refunds", topics = "refunds")
		void onRefunds(List<String> payloads) {
			this.refunds.addAll(payloads);
		}

	}

}

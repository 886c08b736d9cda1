package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.health.BatchConsumerHealthIndicator;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener on a Kafka share group while its only broker is down ({@link RestartableKafka}): the
 * {@code batchConsumer} health component goes {@code DOWN} with "cannot reach its source", as for a
 * consumer group, and comes back {@code UP} by itself when the broker does, consuming again.
 *
 * <p>A record the listener is working when the broker stops cannot be acknowledged: the restarted
 * broker no longer knows it as acquired and delivers it again at once (not when its acquisition
 * lock would have ended), possibly in the same poll as records sent after the restart. So the
 * test waits for the records it expects by payload, never for a count of deliveries.
 */
@SpringBootTest(properties = { "spring.application.name=share-down", "batch-consumer.transport=kafka",
		"batch-consumer.shutdown-timeout=3s", "batch-consumer.commit.interval=100ms",
		"batch-consumer.listeners.share-down.kafka.share-group=true",
		"batch-consumer.listeners.share-down.ordering=unordered",
		"batch-consumer.listeners.share-down.kafka.share-auto-offset-reset=earliest" })
@DirtiesContext
@Tag("integration")
class KafkaShareGroupBrokerDownTests {

	private static final String TOPIC = "share-down";

	/** Closed by {@link TestApplication#brokerCloser()} after the containers stopped. */
	private static final RestartableKafka broker = KafkaOutages.brokerWithTopic(TOPIC, 1);

	/** Every payload delivered to the listener, in delivery order. */
	private static final List<String> received = new CopyOnWriteArrayList<>();

	/** Counted down when the listener holds the first delivery. */
	private static final CountDownLatch working = new CountDownLatch(1);

	/** Counted down by the test once the broker stopped, releasing the listener. */
	private static final CountDownLatch brokerStopped = new CountDownLatch(1);

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchConsumerHealthIndicator health;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		registry.add("spring.kafka.bootstrap-servers", broker::bootstrap);
	}

	@Test
	void aBrokerOutageShowsAsDownAndTheListenerComesBackWhenTheBrokerDoes() throws InterruptedException {
		BatchContainer container = this.registry.getContainer(TOPIC);
		this.producer.send(TOPIC, "before");
		assertThat(working.await(30, TimeUnit.SECONDS)).as("the listener got the record").isTrue();
		assertThat(this.health.health().getStatus()).isEqualTo(Status.UP);
		Duration down;
		try {
			down = KafkaOutages.stopUntilNoticed(broker, container, Duration.ofSeconds(25), brokerStopped::countDown);
			await().atMost(Duration.ofSeconds(5)).until(() -> this.health.health().getStatus().equals(Status.DOWN));
			assertThat(listener()).containsEntry("reason", "cannot reach its source").containsKey("sourceError");
		}
		finally {
			brokerStopped.countDown();
		}
		Duration up = KafkaOutages.startUntilNoticed(broker, container, Duration.ofSeconds(60));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.health.health().getStatus().equals(Status.UP));
		long sent = System.nanoTime();
		this.producer.send(TOPIC, "after");
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(received).as("delivered").contains("after")
				.filteredOn("before"::equals).as("the record in work during the outage, delivered again").hasSize(2));
		System.out.printf("KafkaShareGroupBrokerDownTests: DOWN %d ms after the broker stopped, UP %d ms after it "
				+ "started, the record sent then received in %d ms; deliveries %s%n", down.toMillis(), up.toMillis(),
				Duration.ofNanos(System.nanoTime() - sent).toMillis(), received);
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> listener() {
		Map<String, Object> listeners = (Map<String, Object>) this.health.health().getDetails().get("listeners");
		return (Map<String, Object>) listeners.get(TOPIC);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listener.class)
	static class TestApplication {

		/** Destroyed after the listener containers stopped (lifecycle beans stop before destruction). */
		@Bean
		DisposableBean brokerCloser() {
			return broker::close;
		}

	}

	/** Holds its first delivery until the broker stopped, so that its acknowledgement cannot reach the broker. */
	@Component
	static class Listener {

		@BatchListener(id = TOPIC, topics = TOPIC)
		void onPayloads(List<String> payloads) throws InterruptedException {
			received.addAll(payloads);
			if (working.getCount() > 0) {
				working.countDown();
				brokerStopped.await(60, TimeUnit.SECONDS);
			}
		}

	}

}

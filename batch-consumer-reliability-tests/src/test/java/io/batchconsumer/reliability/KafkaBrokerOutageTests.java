package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Kafka broker outage under a running application ({@code batch-consumer.transport=kafka}): the
 * in-process broker is shut down for about 10 s while a listener consumes, then started again on
 * the same port with the same log directory ({@link RestartableKafka}: the test kit's broker server
 * is restarted in this JVM, the KRaft controller stays up, so the topic, its records and the
 * group's committed offsets are all still there). The container keeps running; its statistics carry
 * the source error and the {@code batchConsumer} health component is {@code DOWN} (HTTP 503) during
 * the outage, {@code UP} again after it; consumption resumes by itself and every message is
 * processed, every partition committed to its end.
 *
 * <p>Why a real restart and not a proxy: the broker advertises its own listener, so a TCP proxy in
 * front of it would be bypassed after the first metadata response; restarting the broker server on
 * its fixed port is a real outage (connections cut, then refused) with the data kept.
 *
 * <p>Default run: one outage of 10 s; soak run: four outages of 20 s.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=kafka-outage", "batch-consumer.transport=kafka",
				"batch-consumer.thread-size=2", "batch-consumer.commit.interval=100ms",
				"batch-consumer.shutdown-timeout=5s", "management.endpoint.health.show-details=always" })
@AutoConfigureRestTestClient
@DirtiesContext
@Tag("integration")
class KafkaBrokerOutageTests {

	private static final String TOPIC = "kafka-outage";

	private static final int PARTITIONS = 4;

	/** Closed by {@link TestApplication#brokerCloser()} after the containers stopped. */
	private static final RestartableKafka broker = KafkaOutages.brokerWithTopic(TOPIC, PARTITIONS);

	@Autowired
	private RestTestClient http;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listener listener;

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		registry.add("spring.kafka.bootstrap-servers", broker::bootstrap);
	}

	@Test
	void theContainerRidesOutABrokerOutageReportsItselfDownAndLosesNothing() throws Exception {
		long seed = Soak.seed("KafkaBrokerOutageTests");
		Random random = new Random(seed);
		int outages = Soak.pick(1, 4);
		Duration outage = Duration.ofSeconds(Soak.pick(10, 20));
		int perRound = Soak.pick(4_000, 40_000);
		BatchContainer container = this.registry.getContainer(TOPIC);
		int sent = 0;
		for (int round = 0; round < outages; round++) {
			sent = send(sent, perRound);
			int processedBeforeOutage = sent - perRound + random.nextInt(perRound / 2);
			await().atMost(Duration.ofSeconds(60)).until(() -> this.listener.seen.size() >= processedBeforeOutage);
			assertHealth(200, "UP");
			Duration noticed = KafkaOutages.stopUntilNoticed(broker, container, outage.plusSeconds(10));
			assertHealth(503, "DOWN");
			Duration left = outage.minus(noticed);
			if (!left.isNegative()) {
				await().during(left).atMost(left.plusSeconds(5)).untilAsserted(() -> {
					assertThat(container.isRunning()).isTrue();
					assertThat(container.stats().state()).isNotEqualTo(LifecyclePhase.FAILED);
				});
			}
			KafkaOutages.startUntilNoticed(broker, container, Duration.ofSeconds(60));
			assertHealth(200, "UP");
		}
		int total = send(sent, perRound);
		await().atMost(Duration.ofMinutes(2)).until(() -> this.listener.seen.size() == total);
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(broker.uncommitted("kafka-outage", TOPIC, PARTITIONS)).isEmpty());
		assertThat(this.listener.seen).as("seed %d", seed)
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, total).mapToObj(KafkaBrokerOutageTests::payload).toList());
		System.out.printf("KafkaBrokerOutageTests: %d messages, %d outages of %s, lost 0, duplicates %d,"
				+ " failed commits %d%n", total, outages, outage, this.listener.deliveries.get() - total,
				container.stats().commitsFailed());
	}

	private int send(int from, int count) {
		for (int first = from; first < from + count; first += 500) {
			List<OutgoingMessage> batch = IntStream.range(first, Math.min(first + 500, from + count))
				.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 64), payload(id)))
				.toList();
			assertThat(this.producer.sendBatch(TOPIC, batch)).allMatch(SendResult::isStored);
		}
		return from + count;
	}

	private void assertHealth(int httpStatus, String status) {
		this.http.get()
			.uri("/actuator/health/batchConsumer")
			.exchange()
			.expectStatus()
			.isEqualTo(httpStatus)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(status);
	}

	private static String payload(int id) {
		return "m-" + id;
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

	/** Remembers every payload it saw; a little slow, so that an outage meets work in flight. */
	@Component
	static class Listener {

		final Set<String> seen = ConcurrentHashMap.newKeySet();

		final AtomicLong deliveries = new AtomicLong();

		@BatchListener(id = TOPIC, topics = TOPIC)
		void onPayloads(List<String> payloads) throws InterruptedException {
			Thread.sleep(5); // simulated work
			this.seen.addAll(payloads);
			this.deliveries.addAndGet(payloads.size());
		}

	}

}

package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A running application ({@code batch-consumer.transport=kafka}) while its only broker is down
 * ({@link RestartableKafka}): a {@code sendBatch} answers within {@code batch-consumer.kafka.send-timeout}
 * with failed results, the container logs the outage once when it starts and once when it ends (with
 * how many polls failed), and stopping the container and closing the transport are bounded.
 */
@SpringBootTest(properties = { "spring.application.name=kafka-down", "batch-consumer.transport=kafka",
		"batch-consumer.kafka.send-timeout=2s", "batch-consumer.shutdown-timeout=3s",
		"batch-consumer.commit.interval=100ms", "logging.level.io.batchconsumer=INFO" })
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("integration")
class KafkaBrokerDownTests {

	private static final String TOPIC = "kafka-down";

	private static final Duration SEND_TIMEOUT = Duration.ofSeconds(2);

	/** Closed by {@link TestApplication#brokerCloser()} after the containers stopped. */
	private static final RestartableKafka broker = KafkaOutages.brokerWithTopic(TOPIC, 2);

	private static boolean down;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private KafkaTransport transport;

	@DynamicPropertySource
	static void kafka(DynamicPropertyRegistry registry) {
		registry.add("spring.kafka.bootstrap-servers", broker::bootstrap);
	}

	@AfterEach
	void brokerUp() {
		if (down) {
			broker.start();
			down = false;
		}
	}

	@Test
	@Order(1)
	void aSendWhileTheBrokerIsDownFailsWithinTheSendTimeout() throws Exception {
		assertThat(this.producer.sendBatch(TOPIC, messages(1))).allMatch(SendResult::isStored);
		stopBroker();
		long started = System.nanoTime();
		List<SendResult> results = CompletableFuture.supplyAsync(() -> this.producer.sendBatch(TOPIC, messages(20)))
			.get(SEND_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		System.out.printf("KafkaBrokerDownTests: sendBatch of 20 with the broker down answered in %d ms%n",
				took.toMillis());
		assertThat(took).isLessThan(SEND_TIMEOUT.plusSeconds(2));
		assertThat(results).hasSize(20).noneMatch(SendResult::isStored);
		assertThat(results).allSatisfy((result) -> assertThat(result.error()).isInstanceOf(TimeoutException.class));
		assertThat(results.get(results.size() - 1).error()).hasMessageContaining("send-timeout");
	}

	@Test
	@Order(2)
	void anOutageIsLoggedOnceWhenItStartsAndOnceWhenItEnds(CapturedOutput output) {
		BatchContainer container = this.registry.getContainer(TOPIC);
		await().atMost(Duration.ofSeconds(30)).until(() -> container.stats().sourceError() == null);
		int before = output.getAll().length();
		down = true;
		KafkaOutages.stopUntilNoticed(broker, container, Duration.ofSeconds(30));
		await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(container::isRunning);
		down = false;
		KafkaOutages.startUntilNoticed(broker, container, Duration.ofSeconds(60));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> output.getAll().substring(before).contains("reaches its source again"));
		String logged = output.getAll().substring(before);
		assertThat(logged.split("cannot reach its source", -1)).as(logged).hasSize(2);
		assertThat(logged.split("reaches its source again", -1)).as(logged).hasSize(2);
		assertThat(logged).containsPattern("reaches its source again after \\d+ failed attempts? in \\d+ s");
	}

	@Test
	@Order(3)
	void stoppingWhileTheBrokerIsDownIsBounded() {
		BatchContainer container = this.registry.getContainer(TOPIC);
		assertThat(this.producer.sendBatch(TOPIC, messages(50))).allMatch(SendResult::isStored);
		down = true;
		KafkaOutages.stopUntilNoticed(broker, container, Duration.ofSeconds(30));
		long started = System.nanoTime();
		container.stop();
		Duration stop = Duration.ofNanos(System.nanoTime() - started);
		started = System.nanoTime();
		this.transport.close();
		Duration close = Duration.ofNanos(System.nanoTime() - started);
		System.out.printf("KafkaBrokerDownTests: with the broker down the container stopped in %d ms, the transport "
				+ "closed in %d ms%n", stop.toMillis(), close.toMillis());
		assertThat(stop).as("no slice in flight: a commit and a close of at most 1 s each").isLessThan(Duration.ofSeconds(4));
		assertThat(close).isLessThan(SEND_TIMEOUT.plusSeconds(2));
	}

	private static void stopBroker() {
		broker.stop();
		down = true;
	}

	private static List<OutgoingMessage> messages(int count) {
		return IntStream.range(0, count).mapToObj((i) -> OutgoingMessage.of("key-" + i, "m-" + i)).toList();
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

	@Component
	static class Listener {

		@BatchListener(id = TOPIC, topics = TOPIC)
		void onPayloads(List<String> payloads) {
		}

	}

}

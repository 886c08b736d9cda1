package io.batchconsumer.spring.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.testing.Event;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The meters of docs/metrics.md are there when a user looks, with the default
 * {@code metrics.refresh-interval} (10 s): a real context on an H2 file database, one queue per
 * topic. Per-partition meters follow the assignment events, not the refresh timer.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=meters-tests", "batch-consumer.jdbc.queues-per-topic=1",
		"batch-consumer.shutdown-timeout=2s", "batch-consumer.listeners.held.group=held",
		"batch-consumer.listeners.held.thread-size=1", "batch-consumer.listeners.held.consumer-batch-size=5",
		"batch-consumer.listeners.held.pull-batch-size=10",
		"batch-consumer.listeners.poison.group=poison",
		"batch-consumer.listeners.plain.group=plain" })
@Tag("integration")
class MetersFromTheFirstSecondH2Tests {

	/** Every meter docs/metrics.md documents. */
	static final List<String> DOCUMENTED = List.of("batch.consumer.backlog", "batch.consumer.backlog.bytes",
			"batch.consumer.thread.batches.open", "batch.consumer.commit.lag", "batch.consumer.flow.control",
			"batch.consumer.messages", "batch.consumer.slice.duration", "batch.consumer.commits",
			"batch.consumer.paused.partitions", "batch.consumer.thread.batches");

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private PrometheusMeterRegistry prometheus;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	@Test
	void withinOneSecondOfOneMessageEveryDocumentedMeterOfTheListenerIsThere() {
		this.producer.send("plain", "one");
		await().atMost(Duration.ofSeconds(1)).untilAsserted(() -> {
			for (String name : DOCUMENTED) {
				assertThat(this.meters.find(name).tag("listener", "plain").meters()).as(name).isNotEmpty();
			}
			assertThat(this.meters.find("batch.consumer.backlog")
				.tags("listener", "plain", "topic", "plain", "partition", "0")
				.gauge()).isNotNull();
		});
	}

	@Test
	void theFlowControlCounterMovesWhenAHeldListenerMakesFlowControlStopFetching() {
		try {
			this.producer.sendBatch("held", IntStream.range(0, 1200).mapToObj((i) -> "h-" + i).toList());
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> {
					assertThat(counter("batch.consumer.flow.control", "held", "reason", "count")).isGreaterThanOrEqualTo(1);
					assertThat(scraped("batch_consumer_flow_control_total", "held", "reason=\"count\""))
						.isGreaterThanOrEqualTo(1);
				});
		}
		finally {
			this.listeners.gate.countDown();
		}
	}

	@Test
	void theDeadLetterCounterEqualsTheNumberOfPoisonMessages() {
		this.producer.sendBatch("poison", List.of(new Event(1, "ok"), "poison-1", new Event(2, "ok"), "poison-2",
				"poison-3", new Event(3, "ok")));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(counter("batch.consumer.messages", "poison", "outcome", "success"))
				.isEqualTo(3));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> {
				assertThat(counter("batch.consumer.messages", "poison", "outcome", "dead-letter")).isEqualTo(3);
				assertThat(scraped("batch_consumer_messages_total", "poison", "outcome=\"dead-letter\"")).isEqualTo(3);
			});
	}

	/** The value of one series in the Prometheus scrape, or NaN when it is not there. */
	private double scraped(String name, String listener, String label) {
		return this.prometheus.scrape()
			.lines()
			.filter((line) -> line.startsWith(name + "{") && line.contains("listener=\"" + listener + "\"")
					&& line.contains(label))
			.mapToDouble((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.findFirst()
			.orElse(Double.NaN);
	}

	private double counter(String name, String listener, String key, String value) {
		FunctionCounter counter = this.meters.find(name).tags("listener", listener, key, value).functionCounter();
		return (counter != null) ? counter.count() : Double.NaN;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		PrometheusMeterRegistry prometheusMeterRegistry() {
			return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		}

	}

	@Component
	static class Listeners {

		final CountDownLatch gate = new CountDownLatch(1);

		@BatchListener(id = "held", topics = "held")
		void onHeld(List<String> payloads) throws InterruptedException {
			this.gate.await(30, TimeUnit.SECONDS);
		}

		@BatchListener(id = "poison", topics = "poison")
		void onPoison(Event event) {
		}

		@BatchListener(id = "plain", topics = "plain")
		void onPlain(String payload) {
		}

	}

}

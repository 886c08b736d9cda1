package io.batchconsumer.spring.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cloud.context.refresh.ContextRefresher;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.EffectiveOption;
import io.batchconsumer.spring.autoconfigure.EffectiveOptions;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.testing.RefreshedFile;
import io.batchconsumer.testsupport.SharedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Kafka's own defaults in a real context on the in-process broker: where no annotation, listener
 * property or global property sets them, a listener gets {@code pull-batch-size}
 * {@value KafkaTransport#DEFAULT_PULL_BATCH_SIZE} and {@code flow-control.pull-threshold-for-queue}
 * {@value KafkaTransport#DEFAULT_PULL_THRESHOLD_FOR_QUEUE} (two polls, so one poll does not stop
 * fetching) and {@code flow-control.max-span} {@value KafkaTransport#DEFAULT_MAX_SPAN} (twice that, so
 * neither do two polls of one partition), shown with source {@code DEFAULT} and origin {@code default of KafkaTransport}; a property
 * still wins, and a refresh that removes the property goes back to Kafka's default, not the generic
 * 1000.
 */
@SharedKafkaBroker(partitions = 2, topics = { "defaults", "defaults-set" })
@SpringBootTest(properties = { "spring.application.name=kafka-defaults-tests", "batch-consumer.transport=kafka", 
		"batch-consumer.commit.interval=100ms", "batch-consumer.shutdown-timeout=10s",
		"batch-consumer.listeners.set.pull-batch-size=300",
		"batch-consumer.listeners.set.flow-control.pull-threshold-for-queue=700",
		"spring.config.import=optional:file:" + KafkaTransportDefaultsTests.FILE,
		"spring.cloud.refresh.additional-property-sources-to-retain=Inlined Test Properties" })
@Tag("integration")
class KafkaTransportDefaultsTests {

	static final String FILE = "target/kafka-transport-defaults-tests/refresh.properties";

	private static final String THRESHOLD = "flow-control.pull-threshold-for-queue";

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private EffectiveOptions effectiveOptions;

	@Autowired
	private ContextRefresher refresher;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	private static final RefreshedFile REFRESHED = new RefreshedFile(FILE, Map.of());

	@AfterAll
	static void deleteFile() {
		REFRESHED.delete();
	}

	@Test
	void aListenerThatSetsNothingTakesKafkasPullSizeACountThresholdOfTwoPollsAndASpanOfTwiceThat() {
		BatchContainer container = this.registry.getContainer("defaults");
		assertThat(container.options().pullBatchSize()).isEqualTo(KafkaTransport.DEFAULT_PULL_BATCH_SIZE);
		assertThat(container.options().pullThresholdForQueue()).isEqualTo(KafkaTransport.DEFAULT_PULL_THRESHOLD_FOR_QUEUE)
			.isEqualTo(2 * KafkaTransport.DEFAULT_PULL_BATCH_SIZE);
		Map<String, EffectiveOption> shown = this.effectiveOptions.of("defaults");
		assertThat(shown.get("pull-batch-size")).isEqualTo(new EffectiveOption("2000", EffectiveOption.Source.DEFAULT,
				"batch-consumer.pull-batch-size", "default of KafkaTransport"));
		assertThat(shown.get(THRESHOLD)).isEqualTo(new EffectiveOption("4000", EffectiveOption.Source.DEFAULT,
				"batch-consumer." + THRESHOLD, "default of KafkaTransport"));
		assertThat(container.options().maxSpan()).isEqualTo(KafkaTransport.DEFAULT_MAX_SPAN)
			.isEqualTo(2 * KafkaTransport.DEFAULT_PULL_THRESHOLD_FOR_QUEUE);
		assertThat(shown.get("flow-control.max-span")).isEqualTo(new EffectiveOption("8000",
				EffectiveOption.Source.DEFAULT, "batch-consumer.flow-control.max-span", "default of KafkaTransport"));
		// The generic defaults stay where Kafka has none of its own.
		assertThat(container.options().pullThresholdSizeForQueue())
			.isEqualTo(OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_QUEUE.defaultValue());
		EffectiveOption size = shown.get("flow-control.pull-threshold-size-for-queue");
		assertThat(size.source()).isEqualTo(EffectiveOption.Source.DEFAULT);
		assertThat(size.origin()).isNull();
	}

	@Test
	void aListenerPropertyWinsOverKafkasDefaults() {
		BatchContainer container = this.registry.getContainer("set");
		assertThat(container.options().pullBatchSize()).isEqualTo(300);
		assertThat(container.options().pullThresholdForQueue()).isEqualTo(700);
		Map<String, EffectiveOption> shown = this.effectiveOptions.of("set");
		assertThat(shown.get("pull-batch-size").source()).isEqualTo(EffectiveOption.Source.LISTENER_PROPERTY);
		assertThat(shown.get(THRESHOLD).source()).isEqualTo(EffectiveOption.Source.LISTENER_PROPERTY);
	}

	@Test
	void aRefreshThatRemovesTheThresholdGoesBackToKafkasDefault() {
		BatchContainer container = this.registry.getContainer("defaults");
		refresh(Map.of("batch-consumer." + THRESHOLD, "5000"));
		assertThat(container.options().pullThresholdForQueue()).isEqualTo(5000);
		assertThat(this.effectiveOptions.of("defaults").get(THRESHOLD).source())
			.isEqualTo(EffectiveOption.Source.GLOBAL_PROPERTY);

		refresh(Map.of());

		assertThat(container.options().pullThresholdForQueue()).isEqualTo(KafkaTransport.DEFAULT_PULL_THRESHOLD_FOR_QUEUE);
		EffectiveOption shown = this.effectiveOptions.of("defaults").get(THRESHOLD);
		assertThat(shown.source()).isEqualTo(EffectiveOption.Source.DEFAULT);
		assertThat(shown.value()).isEqualTo("4000");
		// Still consuming after both tunes.
		this.producer.sendBatchOrThrow("defaults", List.of("a", "b", "c"));
		await().atMost(Duration.ofSeconds(30)).until(() -> this.listeners.received.keySet().containsAll(List.of("a", "b", "c")));
	}

	private void refresh(Map<String, String> properties) {
		REFRESHED.write(properties);
		this.refresher.refresh();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class Application {

	}

	@Component
	static class Listeners {

		final Map<String, Boolean> received = new ConcurrentHashMap<>();

		@BatchListener(id = "defaults", topics = "defaults")
		void onDefaults(List<String> payloads) {
			payloads.forEach((payload) -> this.received.put(payload, true));
		}

		@BatchListener(id = "set", topics = "defaults-set")
		void onSet(List<String> payloads) {
		}

	}

}

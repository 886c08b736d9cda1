package io.batchconsumer.spring.refresh;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.context.refresh.ContextRefresher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.Tuning;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.EffectiveOption;
import io.batchconsumer.spring.autoconfigure.EffectiveOptions;
import io.batchconsumer.spring.autoconfigure.SliceListenerDecorator;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.testing.RefreshedFile;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Runtime tuning through Spring Cloud's refresh, in a real context with spring-cloud-context on the
 * class path and the JDBC transport on an H2 file: each tuning key is changed in a configuration
 * file that {@code spring.config.import} reads, {@link ContextRefresher#refresh()} reloads it and
 * publishes the {@code EnvironmentChangeEvent}, while a {@code key}-ordered listener is busy. The
 * {@code ProcessingGuarantee} of the {@code tune} tests (commits never pass unfinished work nor go
 * back, keys in order and never in two slices at once) holds, every message is delivered exactly
 * once and committed, and the container and the endpoint's effective options show the new value.
 */
@H2FileDatabase
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(properties = { "spring.application.name=refresh-tests", "batch-consumer.group=" + GuardedTransport.GROUP,
		"batch-consumer.commit.interval=20ms", "batch-consumer.shutdown-timeout=5s",
		"spring.config.import=optional:file:" + RefreshTuningH2Tests.FILE,
		// The refresh reloads config data in a copy of the environment that has only the standard sources and these.
		"spring.cloud.refresh.additional-property-sources-to-retain=Inlined Test Properties" })
@Tag("integration")
class RefreshTuningH2Tests {

	static final String FILE = "target/refresh-tuning-tests/refresh.properties";

	private static final String TOPIC = "refresh";

	private static final int QUEUES = 3;

	private static final int MESSAGES = 240;

	private static final Duration WAIT = Duration.ofSeconds(20);

	/**
	 * What the configuration file holds; each test adds to it. The tuning keys start here, not in the
	 * test's inlined properties, which would win over the file.
	 */
	private static final Map<String, String> FILE_PROPERTIES = new TreeMap<>(Map.of("batch-consumer.thread-size",
			"2", "batch-consumer.listeners.refreshed.consumer-batch-size", "5"));

	private static final AtomicInteger SENT = new AtomicInteger();

	@Autowired
	private ContextRefresher refresher;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private EffectiveOptions effectiveOptions;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private GuardedTransport transport;

	@Autowired
	private Listeners listeners;

	private static final RefreshedFile REFRESHED = new RefreshedFile(FILE, FILE_PROPERTIES);

	@AfterAll
	static void deleteFile() {
		REFRESHED.delete();
	}

	@ParameterizedTest(name = "{0} = {1}")
	@CsvSource({ "batch-consumer.thread-size, 6, 6", "batch-consumer.listeners.refreshed.consumer-batch-size, 17, 17",
			"batch-consumer.pull-batch-size, 7, 7",
			"batch-consumer.flow-control.pull-threshold-for-queue, 60, 60",
			"batch-consumer.listeners.refreshed.flow-control.pull-threshold-size-for-queue, 20KB, 20480",
			"batch-consumer.flow-control.max-span, 150, 150",
			"batch-consumer.flow-control.pull-threshold-for-container, 90, 90",
			"batch-consumer.listeners.refreshed.flow-control.pull-threshold-size-for-container, 30KB, 30720" })
	void aRefreshWhileTheListenerIsBusyTunesTheContainerAndKeepsTheGuarantee(String property, String value,
			String expected) throws Exception {
		String key = property.replace("batch-consumer.listeners.refreshed.", "").replace("batch-consumer.", "");
		int total = sendWhilePaused();
		await().atMost(WAIT).until(() -> this.listeners.deliveries.size() > total - MESSAGES * 3 / 4);

		Set<String> changed = refresh(Map.of(property, value));

		assertThat(changed).contains(property);
		BatchContainer container = this.registry.getContainer("refreshed");
		assertThat(String.valueOf(option(key).read(container.options()))).isEqualTo(expected);
		EffectiveOption shown = this.effectiveOptions.of("refreshed").get(key);
		assertThat(shown.value()).isEqualTo(expected);
		assertThat(shown.property()).isEqualTo(property.startsWith("batch-consumer.listeners.") ? property
				: "batch-consumer." + key);
		assertEverythingDeliveredOnceAndCommitted(total);
	}

	@Test
	void aGlobalChangeLeavesAListenerPropertyInForce() throws Exception {
		int total = sendWhilePaused();
		refresh(Map.of("batch-consumer.consumer-batch-size", "40"));
		// batch-consumer.listeners.refreshed.consumer-batch-size (5 at start, or a later test's value) wins.
		BatchContainer container = this.registry.getContainer("refreshed");
		assertThat(container.options().consumerBatchSize()).isNotEqualTo(40);
		assertThat(this.effectiveOptions.of("refreshed").get("consumer-batch-size").source())
			.isEqualTo(EffectiveOption.Source.LISTENER_PROPERTY);
		assertEverythingDeliveredOnceAndCommitted(total);
	}

	@Test
	void aTypoOrAKeyOnlyARestartAppliesIsLoggedByNameAndChangesNothing(CapturedOutput output) throws Exception {
		BatchContainer container = this.registry.getContainer("refreshed");
		var before = container.options();
		Set<String> changed = refresh(Map.of("batch-consumer.thread-sise", "12", "batch-consumer.retry.max-attempts", "5",
				"batch-consumer.listeners.refreshed.thread-sizes", "9"));

		assertThat(changed).contains("batch-consumer.thread-sise", "batch-consumer.retry.max-attempts");
		assertThat(output).contains("A refresh changed an unknown property, ignored: batch-consumer.thread-sise is not "
				+ "a batch-consumer property; did you mean batch-consumer.thread-size?");
		assertThat(output).contains("batch-consumer.listeners.refreshed.thread-sizes is not a listener option; did you "
				+ "mean batch-consumer.listeners.refreshed.thread-size?");
		assertThat(output).contains("A refresh changed [batch-consumer.retry.max-attempts], which running containers "
				+ "cannot apply");
		assertThat(container.options()).isEqualTo(before);
	}

	@Test
	void aBadValueChangesNothingAndIsLogged(CapturedOutput output) throws Exception {
		BatchContainer container = this.registry.getContainer("refreshed");
		int threads = container.options().threadSize();
		try {
			// Spring Cloud's rebinder fails the refresh on the bad value; the containers were left as they were first.
			assertThatThrownBy(() -> refresh(Map.of("batch-consumer.listeners.refreshed.thread-size", "0")))
				.hasRootCauseMessage("batch-consumer.listeners.refreshed.thread-size must be between 1 and 10000 but was 0");
			assertThat(output).contains("A refresh did not tune listener 'refreshed': "
					+ "batch-consumer.listeners.refreshed.thread-size must be between 1 and 10000");
			assertThat(container.options().threadSize()).isEqualTo(threads);
		}
		finally {
			FILE_PROPERTIES.remove("batch-consumer.listeners.refreshed.thread-size");
			refresh(Map.of());
		}
	}

	/** Writes the file with these properties added and refreshes; returns the keys the refresh changed. */
	private Set<String> refresh(Map<String, String> properties) {
		FILE_PROPERTIES.putAll(properties);
		REFRESHED.write(FILE_PROPERTIES);
		return this.refresher.refresh();
	}

	/** Sends the next messages while the container is paused, so that the guarantee knows them first. */
	private int sendWhilePaused() throws Exception {
		BatchContainer container = this.registry.getContainer("refreshed");
		container.pause().get(10, TimeUnit.SECONDS);
		List<OutgoingMessage> batch = new ArrayList<>();
		for (int i = 0; i < MESSAGES; i++) {
			int n = SENT.getAndIncrement();
			batch.add(OutgoingMessage.of("k" + (n % 23), "m-" + n));
		}
		this.producer.sendBatchOrThrow(TOPIC, batch);
		this.transport.mirror(TOPIC, QUEUES);
		container.resume().get(10, TimeUnit.SECONDS);
		return SENT.get();
	}

	private void assertEverythingDeliveredOnceAndCommitted(int total) {
		await().atMost(WAIT).until(() -> this.listeners.deliveries.size() == total
				&& this.transport.mirror().isFullyCommitted(GuardedTransport.GROUP, TOPIC));
		assertThat(this.listeners.deliveries.values()).allMatch((count) -> count.get() == 1);
		this.transport.guarantee().assertEverythingFinished(TOPIC);
		this.transport.guarantee().assertNoViolations();
	}

	private static OptionDescriptor<?> option(String key) {
		return Tuning.OPTIONS.stream().filter((option) -> option.key().equals(key)).findFirst().orElseThrow();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean(destroyMethod = "")
		GuardedTransport guardedTransport(DataSource dataSource) {
			return new GuardedTransport(dataSource, QUEUES);
		}

		/** Shows every slice to the guarantee, on the raw messages the engine hands out. */
		@Bean
		SliceListenerDecorator guaranteeDecorator(GuardedTransport transport) {
			return (options, listener) -> (SliceListener) (slice) -> {
				List<String> token = transport.guarantee().sliceStarted(slice);
				try {
					var result = listener.onSlice(slice);
					List<Message<byte[]>> failed = result.failedOf(slice);
					for (Message<byte[]> message : slice) {
						if (!failed.contains(message)) {
							transport.guarantee().finished(message);
						}
					}
					return result;
				}
				finally {
					transport.guarantee().sliceEnded(token);
				}
			};
		}

	}

	@Component
	static class Listeners {

		final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

		@BatchListener(id = "refreshed", topics = TOPIC)
		void onMessages(List<String> payloads) throws InterruptedException {
			// Busy: an I/O-like wait per slice.
			Thread.sleep(2);
			payloads.forEach((payload) -> this.deliveries.computeIfAbsent(payload, (p) -> new AtomicInteger())
				.incrementAndGet());
		}

	}

}

package io.batchconsumer.spring.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The conditions of {@link BatchConsumerMetricsAutoConfiguration} and the meters it binds, on the
 * in-memory transport (two partitions per topic) and a {@link SimpleMeterRegistry}.
 */
class BatchConsumerMetricsAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class,
				BatchConsumerMetricsAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, Listeners.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s", "batch-consumer.commit.interval=0",
				"batch-consumer.metrics.refresh-interval=1h");

	@Test
	void withAMeterRegistryTheMetersAndTheSliceTimerAreConfigured() {
		this.runner.withUserConfiguration(MeterRegistryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(BatchConsumerMeters.class).hasSingleBean(SliceTimers.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			send(context, 10);
			await().atMost(Duration.ofSeconds(10)).until(() -> count(meters, "batch.consumer.messages", "success") == 10);
			assertThat(meters.find(SliceTimers.NAME).tag("listener", "orders").tag("outcome", "success").timers())
				.isNotEmpty();
			assertThat(count(meters, "batch.consumer.commits", "success")).isPositive();
			assertThat(meters.find("batch.consumer.flow.control").tag("listener", "orders").functionCounters())
				.extracting((counter) -> counter.getId().getTag("reason"))
				.containsExactlyInAnyOrder("count", "size", "span");
			assertThat(meters.find("batch.consumer.messages").tag("listener", "orders").functionCounters())
				.extracting((counter) -> counter.getId().getTag("outcome"))
				.containsExactlyInAnyOrder("success", "retry", "dead-letter", "skipped", "filtered", "retry-queue",
						"completed-before");
			assertThat(meters.find("batch.consumer.thread.batches").tag("listener", "orders").functionCounters())
				.extracting((counter) -> counter.getId().getTag("shape"))
				.containsExactlyInAnyOrder("cut", "whole");
			assertThat(meters.get("batch.consumer.thread.batches").tag("listener", "orders").tag("shape", "cut")
				.functionCounter().count()).as("10 messages need a batch at least").isPositive();
		});
	}

	@Test
	void perPartitionMetersComeWithAPartitionAndGoWhenItLeavesTheSnapshot() {
		this.runner.withUserConfiguration(MeterRegistryConfiguration.class).run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			BatchListenerContainerRegistry containers = context.getBean(BatchListenerContainerRegistry.class);
			send(context, 10);
			await().atMost(Duration.ofSeconds(10)).until(() -> count(meters, "batch.consumer.messages", "success") == 10);
			context.getBean(BatchConsumerMeters.class).refresh();
			assertThat(partitionsOf(meters, "batch.consumer.backlog")).containsExactlyInAnyOrder("0", "1");
			assertThat(partitionsOf(meters, "batch.consumer.commit.lag")).containsExactlyInAnyOrder("0", "1");
			assertThat(partitionsOf(meters, SliceTimers.NAME)).isNotEmpty();
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(meters.get("batch.consumer.backlog").tag("partition", "0").gauge().value())
					.isZero());

			containers.stop("orders");
			assertThat(containers.getContainer("orders").stats().partitions()).isEmpty();
			context.getBean(BatchConsumerMeters.class).refresh();
			for (String name : List.of("batch.consumer.backlog", "batch.consumer.backlog.bytes",
					"batch.consumer.thread.batches.open", "batch.consumer.commit.lag", SliceTimers.NAME)) {
				assertThat(partitionsOf(meters, name)).as(name).isEmpty();
			}
			assertThat(count(meters, "batch.consumer.messages", "success")).isEqualTo(10);

			containers.start("orders");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> containers.getContainer("orders").stats().partitions().size() == 2);
			context.getBean(BatchConsumerMeters.class).refresh();
			assertThat(partitionsOf(meters, "batch.consumer.backlog")).containsExactlyInAnyOrder("0", "1");
			send(context, 4);
			await().atMost(Duration.ofSeconds(10)).until(() -> count(meters, "batch.consumer.messages", "success") == 14);
		});
	}

	@Test
	void withoutPerPartitionMetersEachNameHasOnlyTheListenerTag() {
		this.runner.withUserConfiguration(MeterRegistryConfiguration.class)
			.withPropertyValues("batch-consumer.metrics.per-partition=false")
			.run((context) -> {
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				send(context, 6);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> count(meters, "batch.consumer.messages", "success") == 6);
				context.getBean(BatchConsumerMeters.class).refresh();
				for (String name : List.of("batch.consumer.backlog", "batch.consumer.backlog.bytes",
						"batch.consumer.thread.batches.open", "batch.consumer.commit.lag")) {
					assertThat(meters.find(name).meters()).as(name)
						.singleElement()
						.satisfies((meter) -> assertThat(tagKeys(meter)).containsExactly("listener"));
				}
				assertThat(meters.find(SliceTimers.NAME).meters())
					.allSatisfy((meter) -> assertThat(tagKeys(meter)).containsExactlyInAnyOrder("listener", "outcome"));
				ContainerSnapshot stats = context.getBean(BatchListenerContainerRegistry.class).getContainer("orders").stats();
				assertThat(meters.get("batch.consumer.paused.partitions").tag("reason", "user").gauge().value()).isZero();
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(meters.get("batch.consumer.backlog").gauge().value()).isZero());
				assertThat(stats.partitions()).hasSize(2);
			});
	}

	@Test
	void withoutAMeterRegistryItBacksOff() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerMeters.class)
			.doesNotHaveBean(SliceTimers.class)
			.hasSingleBean(BatchListenerContainerRegistry.class));
	}

	@Test
	void withoutMicrometerOnTheClassPathItBacksOff() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerMeters.class)
				.hasSingleBean(BatchListenerContainerRegistry.class));
	}

	@Test
	void whenTheStarterIsDisabledItBacksOff() {
		this.runner.withUserConfiguration(MeterRegistryConfiguration.class)
			.withPropertyValues("batch-consumer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerMeters.class)
				.doesNotHaveBean(SliceTimers.class));
	}

	@Test
	void anInvalidRefreshIntervalFailsStartUpNamingTheProperty() {
		this.runner.withUserConfiguration(MeterRegistryConfiguration.class)
			.withPropertyValues("batch-consumer.metrics.refresh-interval=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("batch-consumer.metrics.refresh-interval must be more than zero"));
	}

	private static void send(AssertableApplicationContext context, int count) {
		BatchProducer producer = context.getBean(BatchProducer.class);
		for (int i = 0; i < count; i++) {
			producer.send("orders", "key-" + i, "message-" + i);
		}
	}

	private static double count(MeterRegistry meters, String name, String outcome) {
		FunctionCounter counter = meters.find(name).tag("listener", "orders").tag("outcome", outcome).functionCounter();
		return (counter != null) ? counter.count() : -1;
	}

	private static Set<String> partitionsOf(MeterRegistry meters, String name) {
		return meters.find(name)
			.tag("listener", "orders")
			.meters()
			.stream()
			.map((meter) -> meter.getId().getTag("partition"))
			.filter((partition) -> partition != null)
			.collect(Collectors.toSet());
	}

	private static List<String> tagKeys(Meter meter) {
		return meter.getId().getTags().stream().map(Tag::getKey).toList();
	}

	@Configuration(proxyBeanMethods = false)
	static class MeterRegistryConfiguration {

		@Bean
		SimpleMeterRegistry simpleMeterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final List<String> received = new CopyOnWriteArrayList<>();

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(List<String> payloads) {
			this.received.addAll(payloads);
		}

	}

}

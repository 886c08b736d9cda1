package io.batchconsumer.spring.autoconfigure.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.autoconfigure.SliceListenerDecorator;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The conditions of {@link BatchConsumerObservationAutoConfiguration}, on the in-memory transport
 * with an {@link ObservationRegistry} whose handler records the observations it sees.
 */
class BatchConsumerObservationAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class,
				BatchConsumerObservationAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, Listeners.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s");

	@Test
	void withAnObservationRegistryEverySliceDeliveryIsObservedWithTheDefaultKeys() {
		this.runner.withUserConfiguration(RegistryConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(SliceListenerDecorator.class);
			context.getBean(BatchProducer.class).send("orders", "one");
			Recorder recorder = context.getBean(Recorder.class);
			await().until(() -> !recorder.stopped.isEmpty());
			SliceObservationContext observed = recorder.stopped.get(0);
			assertThat(observed.getName()).isEqualTo("batch.consumer.slice");
			assertThat(observed.getLowCardinalityKeyValue("batch.consumer.listener").getValue()).isEqualTo("orders");
			assertThat(observed.getLowCardinalityKeyValue("messaging.destination.name").getValue()).isEqualTo("orders");
			assertThat(observed.getLowCardinalityKeyValue("batch.consumer.outcome").getValue()).isEqualTo("success");
			assertThat(observed.getHighCardinalityKeyValue("messaging.batch.message_count").getValue()).isEqualTo("1");
		});
	}

	@Test
	void anAsynchronousListenersSliceIsObservedUntilItsStageCompletes() {
		this.runner.withUserConfiguration(RegistryConfiguration.class, AsyncListeners.class).run((context) -> {
			context.getBean(BatchProducer.class).send("invoices", "one");
			AsyncListeners listeners = context.getBean(AsyncListeners.class);
			Recorder recorder = context.getBean(Recorder.class);
			CompletableFuture<Void> stage = listeners.started.get(10, TimeUnit.SECONDS);
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> recorder.stopped.stream()
				.noneMatch((observed) -> isOf(observed, "invoices")));
			stage.completeExceptionally(new IllegalStateException("declined"));
			await().atMost(Duration.ofSeconds(10)).until(() -> recorder.stopped.stream()
				.anyMatch((observed) -> isOf(observed, "invoices")));
			SliceObservationContext observed = recorder.stopped.stream()
				.filter((candidate) -> isOf(candidate, "invoices")).findFirst().orElseThrow();
			// the slice's stage completes with the message's failure: a failed slice, with its cause
			assertThat(observed.getLowCardinalityKeyValue("batch.consumer.outcome").getValue()).isEqualTo("failure");
			assertThat(observed.getError()).hasMessage("declined");
		});
	}

	private static boolean isOf(SliceObservationContext context, String listener) {
		return context.getLowCardinalityKeyValue("batch.consumer.listener").getValue().equals(listener);
	}

	@Test
	void aConventionOfTheApplicationReplacesTheDefault() {
		this.runner.withUserConfiguration(RegistryConfiguration.class, CustomConvention.class).run((context) -> {
			context.getBean(BatchProducer.class).send("orders", "one");
			Recorder recorder = context.getBean(Recorder.class);
			await().until(() -> !recorder.stopped.isEmpty());
			assertThat(recorder.stopped.get(0).getName()).isEqualTo("custom.slice");
			assertThat(recorder.stopped.get(0).getLowCardinalityKeyValue("team").getValue()).isEqualTo("billing");
		});
	}

	@Test
	void thePropertyTurnsItOff() {
		this.runner.withUserConfiguration(RegistryConfiguration.class)
			.withPropertyValues("batch-consumer.observation.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(SliceListenerDecorator.class));
	}

	@Test
	void withoutAnObservationRegistryOrMicrometerItBacksOff() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(SliceListenerDecorator.class));
		this.runner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(SliceListenerDecorator.class));
	}

	/** Records every slice observation that stops. */
	static class Recorder implements ObservationHandler<SliceObservationContext> {

		final List<SliceObservationContext> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(SliceObservationContext context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof SliceObservationContext;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RegistryConfiguration {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

		@Bean
		ObservationRegistry observationRegistry(Recorder recorder) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(recorder);
			return registry;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomConvention {

		@Bean
		SliceObservationConvention customSliceObservationConvention() {
			return new SliceObservationConvention() {

				@Override
				public String getName() {
					return "custom.slice";
				}

				@Override
				public KeyValues getLowCardinalityKeyValues(SliceObservationContext context) {
					return KeyValues.of("team", "billing");
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AsyncListeners {

		final CompletableFuture<CompletableFuture<Void>> started = new CompletableFuture<>();

		@BatchListener(id = "invoices", topics = "invoices", group = "invoices")
		CompletionStage<Void> onInvoice(String payload) {
			CompletableFuture<Void> stage = new CompletableFuture<>();
			this.started.complete(stage);
			return stage;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(String payload) {
		}

	}

}

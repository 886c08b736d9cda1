package io.batchconsumer.spring.autoconfigure.endpoint;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conditions of {@link BatchConsumerEndpointAutoConfiguration}, on the in-memory transport.
 */
class BatchConsumerEndpointAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class,
				BatchConsumerEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
				JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, Listeners.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s");

	@Test
	void theEndpointIsConfiguredWhenItIsExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=batchconsumer")
			.run((context) -> {
				assertThat(context).hasSingleBean(BatchConsumerEndpoint.class);
				assertThat(context.getBean(BatchConsumerEndpoint.class).listeners().listeners()).containsKey("orders");
				assertThat(context.getBean(BatchConsumerEndpoint.class).listener("nope")).isNull();
			});
	}

	@Test
	void theEndpointIsNotConfiguredWhileItIsNotExposed() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerEndpoint.class));
	}

	@Test
	void theEndpointIsNotConfiguredWhenItsAccessIsNone() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=batchconsumer",
					"management.endpoint.batchconsumer.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerEndpoint.class));
	}

	@Test
	void withoutActuatorOnTheClassPathItBacksOff() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=batchconsumer")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerEndpoint.class).hasNotFailed());
	}

	@Test
	void whenTheStarterIsDisabledItBacksOff() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=batchconsumer", "batch-consumer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerEndpoint.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(String payload) {
		}

	}

}

package io.batchconsumer.spring.autoconfigure.ui;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.autoconfigure.endpoint.BatchConsumerEndpointAutoConfiguration;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conditions of {@link BatchConsumerUiAutoConfiguration}: off by default, on with
 * {@code batch-consumer.ui.enabled} when the page and the endpoint it reads are exposed.
 */
class BatchConsumerUiAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class,
				BatchConsumerEndpointAutoConfiguration.class, BatchConsumerUiAutoConfiguration.class,
				EndpointAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, Listeners.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s",
				"management.endpoints.web.exposure.include=batchconsumer,batchconsumerui");

	@Test
	void thePageIsOffByDefault() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerUiEndpoint.class));
	}

	@Test
	void withTheSwitchOnThePageIsServedAndReadsTheBatchConsumerEndpoint() {
		this.runner.withPropertyValues("batch-consumer.ui.enabled=true").run((context) -> {
			assertThat(context).hasSingleBean(BatchConsumerUiEndpoint.class);
			String page = context.getBean(BatchConsumerUiEndpoint.class).page();
			assertThat(page).startsWith("<!DOCTYPE html>").contains("/batchconsumer\")").doesNotContain("http://",
					"https://");
		});
	}

	@Test
	void withoutTheBatchConsumerEndpointThereIsNoPage() {
		this.runner
			.withPropertyValues("batch-consumer.ui.enabled=true", "management.endpoints.web.exposure.include=batchconsumerui")
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerUiEndpoint.class));
	}

	@Test
	void withoutActuatorWebEndpointsItBacksOff() {
		this.runner.withPropertyValues("batch-consumer.ui.enabled=true")
			.withClassLoader(new FilteredClassLoader(WebEndpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BatchConsumerUiEndpoint.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(String payload) {
		}

	}

}

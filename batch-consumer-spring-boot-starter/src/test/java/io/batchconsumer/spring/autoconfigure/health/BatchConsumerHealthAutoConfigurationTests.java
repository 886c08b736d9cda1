package io.batchconsumer.spring.autoconfigure.health;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The conditions of {@link BatchConsumerHealthAutoConfiguration}, on the in-memory transport.
 */
class BatchConsumerHealthAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class,
				BatchConsumerHealthAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, Listeners.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s");

	@Test
	void theIndicatorShowsEveryListenerAndIsUpWhileTheyRun() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(BatchConsumerHealthIndicator.class).hasBean("batchConsumerHealthIndicator");
			HealthIndicator indicator = context.getBean(BatchConsumerHealthIndicator.class);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).extractingByKey("listeners")
					.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
					.extractingByKey("orders")
					.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
					.containsEntry("state", "RUNNING")
					.containsEntry("partitions", 2)
					.containsEntry("paused", false);
			});
		});
	}

	@Test
	void aListenerThatIsNotStartedIsUpAndSaysSo() {
		this.runner.withPropertyValues("batch-consumer.auto-startup=false").run((context) -> {
			Health health = context.getBean(BatchConsumerHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(((Map<?, ?>) ((Map<?, ?>) health.getDetails().get("listeners")).get("orders")).get("state"))
				.isEqualTo("CREATED");
		});
	}

	@Test
	void aUserIndicatorWithTheSameNameWins() {
		this.runner.withUserConfiguration(UserIndicatorConfiguration.class)
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerHealthIndicator.class)
				.hasBean("batchConsumerHealthIndicator"));
	}

	@Test
	void thePropertyOfTheHealthIndicatorSwitchesItOff() {
		this.runner.withPropertyValues("management.health.batch-consumer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerHealthIndicator.class));
	}

	@Test
	void withoutSpringBootHealthOnTheClassPathItBacksOff() {
		this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerHealthIndicator.class)
				.hasNotFailed());
	}

	@Test
	void whenTheStarterIsDisabledItBacksOff() {
		this.runner.withPropertyValues("batch-consumer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BatchConsumerHealthIndicator.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserIndicatorConfiguration {

		@Bean
		HealthIndicator batchConsumerHealthIndicator() {
			return () -> Health.up().build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(String payload) {
		}

	}

}

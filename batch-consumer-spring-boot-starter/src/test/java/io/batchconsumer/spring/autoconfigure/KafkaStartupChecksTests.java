package io.batchconsumer.spring.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Kafka transport refuses when the containers are created, before any broker is asked: a
 * retry topic {@code bc.retry.<group>.<id>} that is not a valid Kafka topic name.
 */
class KafkaStartupChecksTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(RefundsListener.class)
		.withPropertyValues("batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=localhost:9",
				"batch-consumer.shutdown-timeout=5s", "batch-consumer.auto-startup=false",
				"batch-consumer.listeners.refunds.ordering=unordered", "batch-consumer.retry.levels=1m");

	@Test
	void aGroupThatMakesTheRetryTopicAnInvalidTopicNameFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("batch-consumer.listeners.refunds.group=billing team")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.listeners.refunds.group ('billing team') makes the retry topic "
						+ "'bc.retry.billing team.refunds' of listener 'refunds', which Kafka refuses"));
	}

	@Test
	void aGlobalGroupTooLongForTheRetryTopicFailsStartUpNamingTheGlobalProperty() {
		this.runner.withPropertyValues("batch-consumer.group=" + "g".repeat(240))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.group ('" + "g".repeat(240) + "') makes the retry topic")
				.hasMessageContaining("257 characters"));
	}

	@Test
	void aValidRetryTopicStarts() {
		this.runner.withPropertyValues("batch-consumer.listeners.refunds.group=billing.team_1-eu")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	static class RefundsListener {

		@BatchListener(id = "refunds", topics = "refunds")
		void onRefunds(List<String> refunds) {
		}

	}

}

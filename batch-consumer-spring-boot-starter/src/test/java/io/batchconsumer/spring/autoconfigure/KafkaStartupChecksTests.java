package io.batchconsumer.spring.autoconfigure;

import java.lang.management.ManagementFactory;
import java.util.List;

import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Kafka transport refuses when the containers are created, before any broker is asked: a
 * retry topic {@code bc.retry.<group>.<id>} that is not a valid Kafka topic name, and the retry topic
 * under {@code partition} ordering. The consumer made
 * for a container that then cannot be created is closed, and so is that of a container that never
 * started (auto-startup off) when its context closes, so no client is left behind (a Kafka consumer
 * registers its {@code app-info} MBean when made and removes it when closed).
 */
class KafkaStartupChecksTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(RefundsListener.class)
		.withPropertyValues("batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=localhost:9",
				"batch-consumer.shutdown-timeout=5s", "batch-consumer.auto-startup=false",
				"batch-consumer.listeners.refunds.ordering=unordered");

	/** Retries of a minute go to the retry topic. */
	private final ApplicationContextRunner retrying = this.runner.withPropertyValues("batch-consumer.retry.levels=1m");

	@Test
	void partitionOrderingWithKafkasRetryQueueFailsStartUpNamingWhereEachPropertyIsSet() {
		this.retrying.withPropertyValues("batch-consumer.listeners.refunds.ordering=partition")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.retry.blocking-limit (PT1S) is below a back-off of "
						+ "batch-consumer.retry.backoff/batch-consumer.retry.levels")
				.hasMessageContaining("later messages of their partition would pass them")
				.hasMessageContaining("batch-consumer.listeners.refunds.ordering=partition forbids: set "
						+ "batch-consumer.listeners.refunds.ordering=key or unordered"));
	}

	@Test
	void aGroupThatMakesTheRetryTopicAnInvalidTopicNameFailsStartUpNamingTheProperty() {
		this.retrying.withPropertyValues("batch-consumer.listeners.refunds.group=billing team")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.listeners.refunds.group ('billing team') makes the retry topic "
						+ "'bc.retry.billing team.refunds' of listener 'refunds', which Kafka refuses"));
	}

	@Test
	void aGlobalGroupTooLongForTheRetryTopicFailsStartUpNamingTheGlobalProperty() {
		this.retrying.withPropertyValues("batch-consumer.group=" + "g".repeat(240))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.group ('" + "g".repeat(240) + "') makes the retry topic")
				.hasMessageContaining("257 characters"));
	}

	@Test
	void theConsumerOfAContainerThatCannotBeCreatedIsClosed() throws Exception {
		ObjectName consumer = new ObjectName("kafka.consumer:type=app-info,id=batch-consumer-refunds");
		this.retrying.withPropertyValues("batch-consumer.listeners.refunds.group=billing team")
			.run((context) -> assertThat(context).hasFailed());
		assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(consumer)).as("the consumer is open")
			.isFalse();
	}

	@Test
	void theConsumerOfAContainerThatNeverStartedIsClosedWithTheContext() throws Exception {
		ObjectName consumer = new ObjectName("kafka.consumer:type=app-info,id=batch-consumer-refunds");
		this.runner.withPropertyValues("batch-consumer.listeners.refunds.group=billing.team_1-eu").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(consumer)).as("the consumer is made")
				.isTrue();
		});
		assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(consumer)).as("the consumer is open")
			.isFalse();
	}

	@Configuration(proxyBeanMethods = false)
	static class RefundsListener {

		@BatchListener(id = "refunds", topics = "refunds")
		void onRefunds(List<String> refunds) {
		}

	}

}

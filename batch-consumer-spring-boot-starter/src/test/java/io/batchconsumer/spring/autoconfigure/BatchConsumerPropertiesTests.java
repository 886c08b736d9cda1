package io.batchconsumer.spring.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binding, validation and precedence of the {@code batch-consumer.*} properties.
 */
class BatchConsumerPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s", "batch-consumer.auto-startup=false");

	@Test
	void aThreadSizeOfZeroFailsNamingTheProperty() {
		assertFailsWith("batch-consumer.thread-size must be between 1 and 10000 but was 0", "batch-consumer.thread-size=0");
	}

	@Test
	void aNegativeConsumerBatchSizeFailsNamingTheProperty() {
		assertFailsWith("batch-consumer.consumer-batch-size must be between 1 and 1000000 but was -1",
				"batch-consumer.consumer-batch-size=-1");
	}

	@Test
	void aNegativeRateLimitPerKeyFailsNamingTheProperty() {
		assertFailsWith("batch-consumer.listeners.orders.rate-limit-per-key must be between 0 and 1000000000 but was -5",
				"batch-consumer.listeners.orders.rate-limit-per-key=-5");
	}

	@Test
	void anUnknownOrderingFailsNamingThePropertyAndTheAllowedValues() {
		assertFailsWith("batch-consumer.ordering must be one of unordered, key, partition but was 'fifo'",
				"batch-consumer.ordering=fifo");
	}

	@Test
	void anUnknownModeFailsNamingThePropertyAndTheAllowedValues() {
		assertFailsWith("batch-consumer.mode must be one of clustering, broadcast but was 'all'",
				"batch-consumer.mode=all");
	}

	@Test
	void anUnknownProcessingListsTheValuesAsTheyAreWritten() {
		assertFailsWith("batch-consumer.processing must be one of at-least-once, exactly-once but was 'exactly-one'",
				"batch-consumer.processing=exactly-one");
		assertFailsWith(
				"batch-consumer.listeners.orders.processing must be one of at-least-once, exactly-once but was 'once'",
				"batch-consumer.listeners.orders.processing=once");
	}

	@Test
	void anUnknownTransportFailsNamingThePropertyAndTheAllowedValues() {
		assertFailsWith("batch-consumer.transport must be one of jdbc, kafka, rocketmq but was 'rabbit'",
				"batch-consumer.transport=rabbit");
	}

	@Test
	void aBadNestedValueFailsNamingTheNestedProperty() {
		assertFailsWith("batch-consumer.retry.multiplier must be between 1.0 and 100.0 but was 0.5",
				"batch-consumer.retry.multiplier=0.5");
		assertFailsWith("batch-consumer.flow-control.max-span must be between 1", "batch-consumer.flow-control.max-span=0");
		assertFailsWith("batch-consumer.jdbc.queues-per-topic must be between 1 and 1024 but was 0",
				"batch-consumer.jdbc.queues-per-topic=0");
	}

	@Test
	void aNotRetryableClassThatIsNotFoundOrNotAnExceptionFailsNamingTheProperty() {
		assertFailsWith("batch-consumer.retry.not-retryable must name exception classes but no class "
				+ "com.example.Missing was found", "batch-consumer.retry.not-retryable=java.lang.IllegalStateException,"
						+ "com.example.Missing");
		assertFailsWith("batch-consumer.listeners.orders.retry.not-retryable must name exception classes but "
				+ "java.lang.String is not a Throwable", "batch-consumer.listeners.orders.retry.not-retryable=java.lang.String");
	}

	@Test
	void aBadListenerOverrideFailsNamingTheListenerProperty() {
		assertFailsWith("batch-consumer.listeners.orders.thread-size must be between 1 and 10000 but was 0",
				"batch-consumer.listeners.orders.thread-size=0");
		assertFailsWith("batch-consumer.listeners.orders.ordering must be one of unordered, key, partition",
				"batch-consumer.listeners.orders.ordering=sorted");
	}

	@Test
	void aBadAnnotationAttributeFailsNamingTheAttributeAndTheMethod() {
		this.runner.withUserConfiguration(BadAttributeListener.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("threadSize of @BatchListener on BadAttributeListener.onEvents(List<String>) "
					+ "must be a whole number but was 'many'"));
	}

	@Test
	void aListenerWithoutTopicsFailsSayingWhereTopicsComeFrom() {
		this.runner.withUserConfiguration(NoTopicsListener.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("topics of @BatchListener on NoTopicsListener.onEvents(List<String>) or "
					+ "batch-consumer.listeners.no-topics.topics must name at least one topic"));
	}

	@Test
	void listenerOverridesFallBackToGlobalPropertiesAndAnnotationAttributesWin() {
		this.runner.withUserConfiguration(OverriddenListener.class)
			.withPropertyValues("batch-consumer.thread-size=4", "batch-consumer.consumer-batch-size=5",
					"batch-consumer.listeners.orders.consumer-batch-size=6",
					"batch-consumer.listeners.orders.ordering=unordered", "batch-consumer.listeners.orders.topics=ignored",
					"batch-consumer.listeners.orders.retry.max-attempts=9", "orders.mode=broadcast",
					"batch-consumer.listeners.orders.flow-control.pull-threshold-size-for-queue=1MB")
			.run((context) -> {
				BatchContainer container = context.getBean(BatchListenerContainerRegistry.class).getContainer("orders");
				assertThat(container.options().threadSize()).isEqualTo(4);
				assertThat(container.options().consumerBatchSize()).isEqualTo(6);
				assertThat(container.options().ordering()).isEqualTo(Ordering.PARTITION);
				assertThat(container.options().mode()).isEqualTo(ConsumptionMode.BROADCAST);
				assertThat(container.options().topics()).containsExactly("orders", "refunds");
				assertThat(container.options().retryMaxAttempts()).isEqualTo(9);
				assertThat(container.options().pullThresholdSizeForQueue()).isEqualTo(1024 * 1024);
				assertThat(container.options().group()).isEqualTo("billing");
			});
	}

	@Test
	void topicsMayComeFromTheListenerProperties() {
		this.runner.withUserConfiguration(NoTopicsListener.class)
			.withPropertyValues("batch-consumer.listeners.no-topics.topics=a,b")
			.run((context) -> assertThat(context.getBean(BatchListenerContainerRegistry.class)
				.getContainer("no-topics")
				.options()
				.topics()).containsExactly("a", "b"));
	}

	private void assertFailsWith(String message, String... properties) {
		this.runner.withPropertyValues(properties)
			.run((AssertableApplicationContext context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(message));
	}

	@Configuration(proxyBeanMethods = false)
	static class BadAttributeListener {

		@BatchListener(id = "bad", topics = "t", threadSize = "many")
		void onEvents(List<String> events) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NoTopicsListener {

		@BatchListener(id = "no-topics")
		void onEvents(List<String> events) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OverriddenListener {

		@BatchListener(id = "orders", topics = { "orders", "${refunds.topic:refunds}" }, ordering = "partition",
				mode = "${orders.mode}", group = "billing")
		void onEvents(List<String> events) {
		}

	}

}

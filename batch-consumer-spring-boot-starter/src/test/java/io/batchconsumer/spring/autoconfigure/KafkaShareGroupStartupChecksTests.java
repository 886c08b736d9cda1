package io.batchconsumer.spring.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a listener on a Kafka share group ({@code batch-consumer.listeners.<id>.kafka.share-group})
 * refuses at start-up, naming the properties: key or partition ordering, exactly-once
 * processing, and a {@code kafka.share-auto-offset-reset} Kafka would refuse or on a consumer group. No broker is asked (the containers do not start).
 */
class KafkaShareGroupStartupChecksTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(ThumbnailsListener.class)
		.withPropertyValues("batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=localhost:9",
				"batch-consumer.auto-startup=false", "batch-consumer.shutdown-timeout=5s",
				"batch-consumer.listeners.thumbs.kafka.share-group=true");

	@Test
	void anUnorderedListenerOnAShareGroupStarts() {
		this.runner.withPropertyValues("batch-consumer.listeners.thumbs.ordering=unordered").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(KafkaTransport.class).usesShareGroup("thumbs")).isTrue();
			assertThat(context.getBean(KafkaTransport.class).usesShareGroup("other")).isFalse();
		});
	}

	@Test
	void keyOrderingOnAShareGroupFailsStartUpNamingTheOrderingProperty() {
		this.runner.withPropertyValues("batch-consumer.listeners.thumbs.ordering=key")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.listeners.thumbs.ordering is key for listener 'thumbs', "
						+ "which consumes through a Kafka share group"));
	}

	@Test
	void partitionOrderingByDefaultOnAShareGroupFailsStartUpNamingTheGlobalProperty() {
		this.runner.withPropertyValues("batch-consumer.ordering=partition")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.ordering is partition for listener 'thumbs'"));
	}

	@Test
	void exactlyOnceOnAShareGroupFailsStartUpNamingTheProcessingProperty() {
		this.runner
			.withPropertyValues("batch-consumer.listeners.thumbs.ordering=unordered",
					"batch-consumer.listeners.thumbs.processing=exactly-once")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.listeners.thumbs.processing is exactly-once, but listener "
						+ "'thumbs' consumes through a Kafka share group (kafka.share-group)"));
	}

	@Test
	void aShareAutoOffsetResetKafkaWouldRefuseFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("batch-consumer.listeners.thumbs.ordering=unordered",
					"batch-consumer.listeners.thumbs.kafka.share-auto-offset-reset=soonest")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("batch-consumer.listeners.thumbs.kafka.share-auto-offset-reset must be 'earliest', "
						+ "'latest' or 'by_duration:<ISO-8601 duration>' but was 'soonest'"));
	}

	@Test
	void aShareAutoOffsetResetOnAConsumerGroupListenerFailsStartUpNamingBothProperties() {
		this.runner
			.withPropertyValues("batch-consumer.listeners.thumbs.kafka.share-group=false",
					"batch-consumer.listeners.thumbs.kafka.share-auto-offset-reset=earliest")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.listeners.thumbs.kafka.share-auto-offset-reset is 'earliest', "
						+ "but listener 'thumbs' consumes through a consumer group: it applies to a share group only "
						+ "(batch-consumer.listeners.thumbs.kafka.share-group=true)"));
	}

	@Configuration(proxyBeanMethods = false)
	static class ThumbnailsListener {

		@BatchListener(id = "thumbs", topics = "images")
		void onImages(List<String> images) {
		}

	}

}

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
 * {@code batch-consumer.kafka.group-protocol}: a known property that takes {@code classic} or
 * {@code consumer}, and fails start-up naming itself on anything else. No broker is asked (the
 * containers do not start).
 */
class KafkaGroupProtocolPropertyTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(RefundsListener.class)
		.withPropertyValues("batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=localhost:9",
				"batch-consumer.auto-startup=false", "batch-consumer.shutdown-timeout=5s");

	@Test
	void theConsumerProtocolIsAKnownValue() {
		this.runner.withPropertyValues("batch-consumer.kafka.group-protocol=CONSUMER")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(KafkaTransport.class));
	}

	@Test
	void anUnknownProtocolFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("batch-consumer.kafka.group-protocol=eager")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("batch-consumer.kafka.group-protocol must be 'classic' or 'consumer' but was 'eager'"));
	}

	@Configuration(proxyBeanMethods = false)
	static class RefundsListener {

		@BatchListener(id = "refunds", topics = "refunds")
		void onRefunds(List<String> refunds) {
		}

	}

}

package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the Kafka transport (prefix {@code batch-consumer.kafka}) that Spring Boot's
 * {@code spring.kafka.*} does not have, used when {@code batch-consumer.transport=kafka}. The
 * connection and the clients come from {@code spring.kafka.*}.
 */
@ConfigurationProperties("batch-consumer.kafka")
public class KafkaTransportProperties {

	/**
	 * How long a 'sendBatch' may take: records not acknowledged by then are reported failed. Also
	 * the producer's 'max.block.ms' unless 'spring.kafka.producer.properties.max.block.ms' is set.
	 */
	private Duration sendTimeout = Duration.ofSeconds(5);

	public Duration getSendTimeout() {
		return this.sendTimeout;
	}

	public void setSendTimeout(Duration sendTimeout) {
		this.sendTimeout = sendTimeout;
	}

}

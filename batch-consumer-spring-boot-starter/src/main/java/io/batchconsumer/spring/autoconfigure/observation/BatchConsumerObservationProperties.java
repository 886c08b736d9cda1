package io.batchconsumer.spring.autoconfigure.observation;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the slice observation ({@code batch-consumer.observation.*}).
 */
@ConfigurationProperties("batch-consumer.observation")
public class BatchConsumerObservationProperties {

	/**
	 * Whether each slice delivery is observed ({@code batch.consumer.slice}) and the producer writes
	 * the trace context into message headers. On by default when the application has an
	 * ObservationRegistry (Spring Boot's Actuator makes one).
	 */
	private boolean enabled = true;

	/**
	 * Whether slice deliveries are observed.
	 * @return {@code true} when they are
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Sets whether slice deliveries are observed.
	 * @param enabled whether they are
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

}

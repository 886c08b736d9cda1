package io.batchconsumer.spring.autoconfigure;

/**
 * The {@code dead-letter.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.dead-letter.*} and {@code batch-consumer.listeners.<id>.dead-letter.*}). A value
 * that is {@code null} is not set.
 * Generated from the option table ({@link io.batchconsumer.core.ConfigurableOptions})
 * by {@code src/build/GenerateOptionSources.java}: change the table, not this file.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class DeadLetterProperties {

	/**
	 * Whether failed messages are dead-lettered (Kafka: topic '<topic>.DLQ'; JDBC: the dead-letter
	 * table); otherwise they are logged and skipped.
	 */
	private Boolean enabled;

	public Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(Boolean enabled) {
		this.enabled = enabled;
	}

}

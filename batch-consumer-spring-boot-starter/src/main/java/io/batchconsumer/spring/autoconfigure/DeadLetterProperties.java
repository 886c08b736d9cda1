package io.batchconsumer.spring.autoconfigure;

/**
 * The {@code dead-letter.*} options of {@link ContainerProperties}, at both levels
 * ({@code batch-consumer.dead-letter.*} and
 * {@code batch-consumer.listeners.<id>.dead-letter.*}). A value that is {@code null} is not set.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class DeadLetterProperties {

	/**
	 * Whether failed messages are dead-lettered (Kafka: topic '<topic>.DLQ'; JDBC: the dead-letter
	 * table); otherwise they are logged and skipped.
	 */
	private Boolean enabled;

	/**
	 * Returns whether failed messages are dead-lettered ({@code dead-letter.enabled}).
	 * @return the value, or {@code null} when not set
	 */
	public Boolean getEnabled() {
		return this.enabled;
	}

	/**
	 * Sets whether failed messages are dead-lettered ({@code dead-letter.enabled}).
	 * @param enabled the value, or {@code null} for not set
	 */
	public void setEnabled(Boolean enabled) {
		this.enabled = enabled;
	}

}

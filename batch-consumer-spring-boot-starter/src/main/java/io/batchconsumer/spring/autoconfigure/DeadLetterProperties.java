package io.batchconsumer.spring.autoconfigure;

/**
 * Dead letters of messages that failed every attempt: the {@code dead-letter.*} options of
 * {@link ContainerProperties}, at both levels ({@code batch-consumer.dead-letter.*} and
 * {@code batch-consumer.listeners.<id>.dead-letter.*}). A value that is {@code null} is not set.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class DeadLetterProperties {

	/**
	 * Whether failed messages are dead-lettered (Kafka: topic '<topic>.DLQ'; JDBC: the
	 * dead-letter table); otherwise they are logged and skipped.
	 */
	private Boolean enabled;

	public Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(Boolean enabled) {
		this.enabled = enabled;
	}

}

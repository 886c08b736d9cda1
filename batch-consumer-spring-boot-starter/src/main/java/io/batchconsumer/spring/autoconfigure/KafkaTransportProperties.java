package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.Locale;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.env.Environment;

/**
 * Settings of the Kafka transport (prefix {@code batch-consumer.kafka}) that are not client
 * properties of Boot's {@code spring.kafka.*}, used when {@code batch-consumer.transport=kafka}.
 */
@ConfigurationProperties("batch-consumer.kafka")
public class KafkaTransportProperties {

	/**
	 * The property of a listener ({@code batch-consumer.listeners.<id>.kafka.share-group}) that makes
	 * it consume through a Kafka share group instead of a consumer group (docs/kafka.md).
	 */
	static final String SHARE_GROUP = "kafka.share-group";

	/**
	 * The property of a share-group listener
	 * ({@code batch-consumer.listeners.<id>.kafka.share-auto-offset-reset}) that sets where its group
	 * starts reading a partition it has not read yet: the group config {@code share.auto.offset.reset}
	 * ({@code earliest}, {@code latest} or {@code by_duration:<ISO-8601 duration>}; docs/kafka.md).
	 */
	static final String SHARE_AUTO_OFFSET_RESET = "kafka.share-auto-offset-reset";

	/**
	 * The group protocol of the consumers: 'classic' or 'consumer' (KIP-848, brokers 4.0 or later).
	 * When not set, Kafka's 'group.protocol' from spring.kafka.* applies, else the client's default
	 * ('classic' up to kafka-clients 4.3).
	 */
	private String groupProtocol;

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

	public String getGroupProtocol() {
		return this.groupProtocol;
	}

	public void setGroupProtocol(String groupProtocol) {
		this.groupProtocol = groupProtocol;
	}

	/**
	 * The {@code share.auto.offset.reset} a listener asks for.
	 * @param environment the environment
	 * @param id the listener id
	 * @return the value, or {@code null} when the listener sets none
	 * @throws IllegalArgumentException naming the property when the listener does not consume through a
	 * share group, or when Kafka would refuse the value
	 */
	static String shareAutoOffsetReset(Environment environment, String id) {
		String property = ListenerPrefix.of(id) + SHARE_AUTO_OFFSET_RESET;
		String value = environment.getProperty(property);
		if (value == null || value.isBlank()) {
			return null;
		}
		if (!Boolean.parseBoolean(environment.getProperty(ListenerPrefix.of(id) + SHARE_GROUP))) {
			throw new IllegalArgumentException(property + " is '" + value + "', but listener '" + id
					+ "' consumes through a consumer group: it applies to a share group only ("
					+ ListenerPrefix.of(id) + SHARE_GROUP + "=true); a consumer group starts at "
					+ "spring.kafka.consumer.auto-offset-reset");
		}
		String lower = value.trim().toLowerCase(Locale.ROOT);
		if (!lower.equals("earliest") && !lower.equals("latest") && !lower.startsWith("by_duration:")) {
			throw new IllegalArgumentException(property + " must be 'earliest', 'latest' or "
					+ "'by_duration:<ISO-8601 duration>' but was '" + value + "'");
		}
		return value;
	}

	/**
	 * The configured protocol in Kafka's spelling.
	 * @return {@code classic}, {@code consumer}, or {@code null} when not set
	 * @throws IllegalArgumentException naming the property when the value is neither
	 */
	String groupProtocolOrNull() {
		if (this.groupProtocol == null || this.groupProtocol.isBlank()) {
			return null;
		}
		String protocol = this.groupProtocol.trim().toLowerCase(Locale.ROOT);
		if (!protocol.equals("classic") && !protocol.equals("consumer")) {
			throw new IllegalArgumentException("batch-consumer.kafka.group-protocol must be 'classic' or 'consumer' but was '"
					+ this.groupProtocol + "'");
		}
		return protocol;
	}

}

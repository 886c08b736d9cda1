package io.batchconsumer.core;

import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One message as a listener sees it.
 *
 * <p>Transports produce {@code Message<byte[]>}; the starter converts the payload to the type
 * the listener method asks for with {@link #withPayload(Object)}, which keeps every other field,
 * so a converted message still identifies the same record (topic, partition, offset).
 *
 * @param <T> the payload type
 * @param topic the topic it was read from
 * @param partition the partition (JDBC: queue) it was read from
 * @param offset its position in the partition
 * @param key its key, or {@code null} when it has none
 * @param payload its payload
 * @param headers its headers, never {@code null}
 * @param timestamp when it was stored, in epoch milliseconds
 * @param deliveryAttempt 1 for the first delivery to a listener, 2 for the first retry, and so on
 * @param serializedSize the size of the stored record in bytes, used for flow control
 */
public record Message<T>(String topic, int partition, long offset, @Nullable String key, T payload,
		Map<String, String> headers, long timestamp, int deliveryAttempt, int serializedSize) {

	/** The header that carries a message's tag ({@code OutgoingMessage.builder().tag("paid")}). */
	public static final String TAG_HEADER = "bc-tag";

	/**
	 * The header of a message sent with {@link SendOptions#deliverAt(java.time.Instant)} on a
	 * transport that holds it on the consumer side (Kafka): epoch milliseconds before which it does
	 * not reach a listener.
	 */
	public static final String DELIVER_AT_HEADER = "bc-deliver-at";

	public Message {
		Objects.requireNonNull(topic, "topic");
		headers = (headers != null) ? Map.copyOf(headers) : Map.of();
		if (deliveryAttempt < 1) {
			throw new IllegalArgumentException("deliveryAttempt must be 1 or more but was " + deliveryAttempt);
		}
	}

	/**
	 * Creates a raw message as a transport reads it, on its first delivery.
	 * @param topic the topic
	 * @param partition the partition
	 * @param offset the offset
	 * @param key the key or {@code null}
	 * @param payload the raw payload, never {@code null}
	 * @param headers the headers or {@code null}
	 * @param timestamp the store time in epoch milliseconds
	 * @return the message
	 */
	public static Message<byte[]> raw(String topic, int partition, long offset, @Nullable String key,
			byte[] payload, @Nullable Map<String, String> headers, long timestamp) {
		int size = payload.length + ((key != null) ? key.length() : 0) + 16;
		if (headers != null) {
			for (Map.Entry<String, String> header : headers.entrySet()) {
				size += header.getKey().length() + ((header.getValue() != null) ? header.getValue().length() : 0);
			}
		}
		return new Message<>(topic, partition, offset, key, payload, headers, timestamp, 1, size);
	}

	/**
	 * The message's tag, the value of {@link #TAG_HEADER}.
	 * @return the tag, or {@code null} when it has none
	 */
	public @Nullable String tag() {
		return this.headers.get(TAG_HEADER);
	}

	/**
	 * When the message may reach a listener at the earliest, from {@link #DELIVER_AT_HEADER}.
	 * @return epoch milliseconds, or 0 when it has no such header (or an unreadable one)
	 */
	public long deliverAtMillis() {
		String value = this.headers.get(DELIVER_AT_HEADER);
		if (value == null) {
			return 0;
		}
		try {
			return Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * The partition this message belongs to.
	 * @return the topic and partition
	 */
	public TopicPartition topicPartition() {
		return new TopicPartition(this.topic, this.partition);
	}

	/**
	 * A copy with another payload and every other field kept.
	 * @param <U> the new payload type
	 * @param newPayload the new payload
	 * @return the copy
	 */
	public <U> Message<U> withPayload(U newPayload) {
		return new Message<>(this.topic, this.partition, this.offset, this.key, newPayload, this.headers,
				this.timestamp, this.deliveryAttempt, this.serializedSize);
	}

	/**
	 * A copy delivered for the given attempt.
	 * @param attempt the delivery attempt, 1 or more
	 * @return the copy
	 */
	public Message<T> withDeliveryAttempt(int attempt) {
		return new Message<>(this.topic, this.partition, this.offset, this.key, this.payload, this.headers,
				this.timestamp, attempt, this.serializedSize);
	}

	/**
	 * Whether the other message is the same record (same topic, partition and offset),
	 * whatever its payload type and attempt.
	 * @param other another message
	 * @return whether both denote one stored record
	 */
	public boolean sameRecord(@Nullable Message<?> other) {
		return other != null && this.offset == other.offset && this.partition == other.partition
				&& this.topic.equals(other.topic);
	}

	@Override
	public String toString() {
		// Never the payload: messages end up in logs.
		return "Message[" + this.topic + "-" + this.partition + "@" + this.offset + ", attempt "
				+ this.deliveryAttempt + "]";
	}

}

package io.batchconsumer.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Sends messages to a topic of the configured transport.
 *
 * <p>Each element of a list is a payload, or an {@link OutgoingMessage} that carries key, headers
 * and payload. Payloads are {@code byte[]} or {@code String} as they are, other objects as JSON.
 *
 * <p>The key ({@link OutgoingMessage#of(String, Object)}, {@link #send(String, String, Object)})
 * chooses the partition; with {@code key} ordering, messages of one key are processed in order.
 * Messages without a key are not ordered against each other.
 *
 * <p>{@link #sendBatch(String, List)}, the default, never throws for a message that failed: it
 * returns a result per message to check. {@link #sendBatchOrThrow(String, List)} throws
 * {@link BatchSendException} when any message failed.
 *
 * <p>Threading: thread-safe.
 */
public interface BatchProducer {

	/**
	 * Sends one payload without a key and waits until it is stored.
	 * @param topic the topic
	 * @param payload the payload or an {@link OutgoingMessage}
	 * @return where it was stored
	 */
	default SendResult send(String topic, Object payload) {
		return sendBatch(topic, List.of(payload)).get(0);
	}

	/**
	 * Sends one payload with a key and waits until it is stored.
	 * @param topic the topic
	 * @param key the key, or {@code null}
	 * @param payload the payload
	 * @return where it was stored
	 */
	default SendResult send(String topic, @Nullable String key, Object payload) {
		return sendBatch(topic, List.of(OutgoingMessage.of(key, payload))).get(0);
	}

	/**
	 * Sends every message and waits until each is stored or has failed.
	 * @param topic the topic
	 * @param messages payloads or {@link OutgoingMessage}s
	 * @return one result per message, in order
	 */
	List<SendResult> sendBatch(String topic, List<?> messages);

	/**
	 * Sends every message like {@link #sendBatch(String, List)}, and throws when any of them was not
	 * stored. On the JDBC transport a batch is one transaction, so then none of them was stored; on
	 * Kafka the others were.
	 * @param topic the topic
	 * @param messages payloads or {@link OutgoingMessage}s
	 * @return one result per message, in order, every one stored
	 * @throws BatchSendException when at least one message was not stored; it carries every result
	 */
	default List<SendResult> sendBatchOrThrow(String topic, List<?> messages) {
		List<SendResult> results = sendBatch(topic, messages);
		if (results.stream().anyMatch((result) -> !result.isStored())) {
			throw new BatchSendException(topic, results);
		}
		return results;
	}

	/**
	 * Sends every message without waiting. Failures are logged and counted by the transport.
	 * @param topic the topic
	 * @param messages payloads or {@link OutgoingMessage}s
	 */
	void sendOneWayBatch(String topic, List<?> messages);

	/**
	 * Stores every message like {@link #sendBatch(String, List)}, delivered no earlier than the
	 * options say. A delayed message's result may have no partition and offset yet ({@code -1})
	 * when the transport assigns them only when it is due (JDBC).
	 * @param topic the topic
	 * @param messages payloads or {@link OutgoingMessage}s
	 * @param options at once, or delayed
	 * @return one result per message, in order
	 * @throws UnsupportedOperationException when this producer cannot delay and a delay was asked for
	 */
	default List<SendResult> sendBatch(String topic, List<?> messages, SendOptions options) {
		if (!options.isDelayed()) {
			return sendBatch(topic, messages);
		}
		throw new UnsupportedOperationException(getClass().getName() + " cannot delay a batch");
	}

}

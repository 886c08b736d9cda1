package io.batchconsumer.core;

import java.util.Map;
import java.util.Objects;

/**
 * A message to send with a key and headers; an element of
 * {@link BatchProducer#sendBatch(String, java.util.List)} that is not an {@code OutgoingMessage}
 * is sent as a payload without key or headers.
 *
 * @param key the key or {@code null}; messages with one key go to one partition
 * @param headers the headers, never {@code null}
 * @param payload the payload: {@code byte[]} and {@code String} as they are, anything else as JSON
 */
public record OutgoingMessage(String key, Map<String, String> headers, Object payload) {

	public OutgoingMessage {
		Objects.requireNonNull(payload, "payload");
		headers = (headers != null) ? Map.copyOf(headers) : Map.of();
	}

	/**
	 * A message with a key and no headers.
	 * @param key the key or {@code null}
	 * @param payload the payload
	 * @return the message
	 */
	public static OutgoingMessage of(String key, Object payload) {
		return new OutgoingMessage(key, Map.of(), payload);
	}

}

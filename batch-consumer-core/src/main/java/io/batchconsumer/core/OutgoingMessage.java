package io.batchconsumer.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A message to send with a key, a tag and headers; an element of
 * {@link BatchProducer#sendBatch(String, java.util.List)} that is not an {@code OutgoingMessage}
 * is sent as a payload without key or headers.
 *
 * <p>The tag travels as the header {@link Message#TAG_HEADER} (Kafka: a record header; JDBC: the
 * {@code tag} column as well, so a subscription filters in the query).
 *
 * @param key the key or {@code null}; messages with one key go to one partition
 * @param headers the headers, never {@code null}
 * @param payload the payload: {@code byte[]} and {@code String} as they are, anything else as JSON
 */
public record OutgoingMessage(@Nullable String key, Map<String, String> headers, Object payload) {

	/** The longest tag, in characters. */
	public static final int MAX_TAG_LENGTH = 128;

	public OutgoingMessage {
		Objects.requireNonNull(payload, "payload");
		headers = (headers != null) ? Map.copyOf(headers) : Map.of();
		String tag = headers.get(Message.TAG_HEADER);
		if (tag != null && (tag.isBlank() || tag.length() > MAX_TAG_LENGTH || tag.contains("||")
				|| tag.chars().anyMatch(Character::isWhitespace) || tag.equals("*"))) {
			throw new IllegalArgumentException("tag '" + tag + "' is not allowed: 1 to " + MAX_TAG_LENGTH
					+ " characters, no spaces, no '||', not '*'");
		}
	}

	/**
	 * A message without key or headers, for when the order between messages does not matter:
	 * keyless messages are not ordered against each other (JDBC spreads them round-robin over a
	 * topic's queues), and a listener with {@code ordering=key}, the default, processes them in
	 * parallel and logs a WARN once when it meets the first one ({@code ordering=unordered}
	 * says it is meant). Same as {@code of(null, payload)}.
	 * @param payload the payload: {@code byte[]} and {@code String} as they are, anything else as JSON
	 * @return the message
	 * @throws NullPointerException when {@code payload} is {@code null}
	 */
	public static OutgoingMessage of(Object payload) {
		return new OutgoingMessage(null, Map.of(), payload);
	}

	/**
	 * A message with a key and no headers.
	 * @param key the key or {@code null}
	 * @param payload the payload
	 * @return the message
	 */
	public static OutgoingMessage of(@Nullable String key, Object payload) {
		return new OutgoingMessage(key, Map.of(), payload);
	}

	/**
	 * An element of a batch as an {@code OutgoingMessage}: itself, or a payload without key.
	 * @param element an {@code OutgoingMessage} or a payload
	 * @return the message
	 */
	public static OutgoingMessage from(Object element) {
		Objects.requireNonNull(element, "a message of the batch is null");
		return (element instanceof OutgoingMessage outgoing) ? outgoing : of(element);
	}

	/**
	 * A copy with one more header (or its value replaced).
	 * @param name the name
	 * @param value the value
	 * @return the copy
	 */
	public OutgoingMessage withHeader(String name, String value) {
		Map<String, String> copy = new LinkedHashMap<>(this.headers);
		copy.put(name, value);
		return new OutgoingMessage(this.key, copy, this.payload);
	}

	/**
	 * Starts a builder.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * The tag.
	 * @return the tag, or {@code null} when it has none
	 */
	public @Nullable String tag() {
		return this.headers.get(Message.TAG_HEADER);
	}

	/**
	 * Builds an {@link OutgoingMessage}. Threading: not thread-safe.
	 */
	public static final class Builder {

		private String key;

		private final Map<String, String> headers = new LinkedHashMap<>();

		private Object payload;

		private Builder() {
		}

		/**
		 * Sets the key.
		 * @param key the key or {@code null}
		 * @return this builder
		 */
		public Builder key(@Nullable String key) {
			this.key = key;
			return this;
		}

		/**
		 * Sets the tag a listener subscribes to ({@code @BatchListener(tags = "created || paid")}).
		 * @param tag the tag or {@code null} for none
		 * @return this builder
		 */
		public Builder tag(@Nullable String tag) {
			if (tag == null) {
				this.headers.remove(Message.TAG_HEADER);
			}
			else {
				this.headers.put(Message.TAG_HEADER, tag);
			}
			return this;
		}

		/**
		 * Adds a header.
		 * @param name the name
		 * @param value the value
		 * @return this builder
		 */
		public Builder header(String name, String value) {
			this.headers.put(name, value);
			return this;
		}

		/**
		 * Sets the payload.
		 * @param payload {@code byte[]} and {@code String} as they are, anything else as JSON
		 * @return this builder
		 */
		public Builder payload(Object payload) {
			this.payload = payload;
			return this;
		}

		/**
		 * Builds the message.
		 * @return the message
		 */
		public OutgoingMessage build() {
			return new OutgoingMessage(this.key, this.headers, this.payload);
		}

	}

}

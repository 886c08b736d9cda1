package io.batchconsumer.core;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * A dead letter as stored: where the message was, its key, headers and payload, why it failed, and
 * whether it was replayed. {@link #toString()} never shows the payload.
 *
 * @param id the id to show or replay it by (JDBC: the row id; Kafka:
 *        {@code <dlq-topic>:<partition>:<offset>})
 * @param group the consumer group that dead-lettered it, or {@code null} when not recorded
 * @param topic the original topic
 * @param partition the original partition (JDBC: queue)
 * @param offset the original offset
 * @param key the message key, or {@code null}
 * @param headers the message's own headers
 * @param payload the payload bytes as received
 * @param attempts how often it was delivered
 * @param errorClass the class of the last failure
 * @param errorMessage the bounded message of the last failure
 * @param createdAt when it was dead-lettered
 * @param replayedAt when it was last replayed, or {@code null}
 */
public record StoredDeadLetter(String id, @Nullable String group, String topic, int partition, long offset,
		@Nullable String key,
		Map<String, String> headers, byte[] payload, int attempts, String errorClass, @Nullable String errorMessage,
		Instant createdAt, @Nullable Instant replayedAt) {

	/**
	 * Checks and copies.
	 */
	public StoredDeadLetter {
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(topic, "topic");
		headers = Map.copyOf(headers);
		Objects.requireNonNull(payload, "payload");
	}

	/**
	 * The payload as text, when it is valid UTF-8.
	 * @return the text, or empty for binary payloads
	 */
	public Optional<String> payloadText() {
		try {
			return Optional.of(StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(this.payload))
				.toString());
		}
		catch (CharacterCodingException ex) {
			return Optional.empty();
		}
	}

	/**
	 * The same dead letter marked replayed at this time.
	 * @param at when
	 * @return the marked copy
	 */
	public StoredDeadLetter replayed(Instant at) {
		return new StoredDeadLetter(this.id, this.group, this.topic, this.partition, this.offset, this.key, this.headers,
				this.payload, this.attempts, this.errorClass, this.errorMessage, this.createdAt, at);
	}

	@Override
	public String toString() {
		return "StoredDeadLetter[" + this.id + " of " + this.topic + "-" + this.partition + "@" + this.offset + ", "
				+ this.attempts + " attempts, " + this.errorClass + "]";
	}

}

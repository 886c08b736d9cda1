package io.batchconsumer.spring.autoconfigure.endpoint;

import java.time.Instant;
import java.util.Base64;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.batchconsumer.core.StoredDeadLetter;

/**
 * A dead letter as the {@code deadletters} endpoint shows it. In a page the payload is left out
 * (only its size shows); shown alone, it is text when it is valid UTF-8 and Base64 otherwise. A
 * {@code null} field is left out of the JSON: Actuator writes an {@link OperationResponseBody}
 * without nulls, whether it is the whole answer or part of a page.
 *
 * @param id the id to show or replay it by
 * @param group the consumer group that dead-lettered it, when recorded
 * @param topic the original topic
 * @param partition the original partition (JDBC: queue)
 * @param offset the original offset
 * @param key the key
 * @param headers the message's own headers
 * @param payloadBytes the payload's size
 * @param payloadText the payload as text, when shown and valid UTF-8
 * @param payloadBase64 the payload in Base64, when shown and not text
 * @param attempts how often it was delivered
 * @param errorClass the class of the last failure
 * @param errorMessage the bounded message of the last failure
 * @param createdAt when it was dead-lettered (ISO-8601)
 * @param replayedAt when it was last replayed (ISO-8601), or {@code null}
 */
public record DeadLetterDescriptor(String id, @Nullable String group, String topic, int partition, long offset,
		@Nullable String key, Map<String, String> headers, int payloadBytes, @Nullable String payloadText,
		@Nullable String payloadBase64, int attempts, String errorClass, String errorMessage,
		@Nullable String createdAt, @Nullable String replayedAt) implements OperationResponseBody {

	static DeadLetterDescriptor of(StoredDeadLetter deadLetter, boolean withPayload) {
		String text = withPayload ? deadLetter.payloadText().orElse(null) : null;
		String base64 = (withPayload && text == null) ? Base64.getEncoder().encodeToString(deadLetter.payload()) : null;
		return new DeadLetterDescriptor(deadLetter.id(), deadLetter.group(), deadLetter.topic(), deadLetter.partition(),
				deadLetter.offset(), deadLetter.key(), deadLetter.headers(), deadLetter.payload().length, text, base64,
				deadLetter.attempts(), deadLetter.errorClass(), deadLetter.errorMessage(), iso(deadLetter.createdAt()),
				iso(deadLetter.replayedAt()));
	}

	private static @Nullable String iso(@Nullable Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

}

package io.batchconsumer.core;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.batchconsumer.core.spi.RetryQueue;

/**
 * A message that failed every attempt, with why.
 *
 * @param message the original raw message (original key, bytes and headers)
 * @param attempts how many times it was delivered
 * @param errorClass the class name of the last failure
 * @param errorMessage the last failure's message, bounded to {@link #MAX_ERROR_MESSAGE_LENGTH} characters
 * @param origin where the message was first read: the message's own topic, partition and offset,
 *        except for a message that came back through the {@link RetryQueue}, whose {@link #message()}
 *        is the retry record (what the container finishes) while its origin is the record it retries
 *        (what a dead-letter sink records, and where a replay goes)
 */
public record DeadLetter(Message<byte[]> message, int attempts, String errorClass, String errorMessage,
		Origin origin) {

	/** Longest error message kept with a dead letter. */
	public static final int MAX_ERROR_MESSAGE_LENGTH = 1000;

	public DeadLetter {
		Objects.requireNonNull(message, "message");
		errorClass = (errorClass != null) ? errorClass : "unknown";
		errorMessage = bound(errorMessage);
		origin = (origin != null) ? origin : Origin.of(message);
	}

	/**
	 * A dead letter of a message read where it was first stored.
	 * @param message the original raw message
	 * @param attempts how many times it was delivered
	 * @param errorClass the class name of the last failure
	 * @param errorMessage the last failure's message
	 */
	public DeadLetter(Message<byte[]> message, int attempts, @Nullable String errorClass,
			@Nullable String errorMessage) {
		this(message, attempts, (errorClass != null) ? errorClass : "unknown", bound(errorMessage),
				Origin.of(message));
	}

	/**
	 * Creates a dead letter from the last failure.
	 * @param message the original message
	 * @param attempts the delivery attempts made
	 * @param cause the last failure, may be {@code null}
	 * @return the dead letter
	 */
	public static DeadLetter of(Message<byte[]> message, int attempts, @Nullable Throwable cause) {
		return (cause != null) ? new DeadLetter(message, attempts, cause.getClass().getName(), cause.getMessage())
				: new DeadLetter(message, attempts, "unknown", "reported failed by the listener");
	}

	/**
	 * A copy with another origin.
	 * @param where where the message was first read
	 * @return the copy
	 */
	public DeadLetter withOrigin(Origin where) {
		return new DeadLetter(this.message, this.attempts, this.errorClass, this.errorMessage, where);
	}

	private static String bound(@Nullable String text) {
		if (text == null) {
			return "";
		}
		return (text.length() <= MAX_ERROR_MESSAGE_LENGTH) ? text : text.substring(0, MAX_ERROR_MESSAGE_LENGTH - 3) + "...";
	}

	/**
	 * Where a message was first read.
	 *
	 * @param topic the topic
	 * @param partition the partition (JDBC: queue)
	 * @param offset the offset
	 */
	public record Origin(String topic, int partition, long offset) {

		public Origin {
			Objects.requireNonNull(topic, "topic");
		}

		/**
		 * The message's own topic, partition and offset.
		 * @param message the message
		 * @return its origin
		 */
		public static Origin of(Message<?> message) {
			return new Origin(message.topic(), message.partition(), message.offset());
		}

	}

}

package io.batchconsumer.core;

import java.util.Objects;

/**
 * A message that failed every attempt, with why.
 *
 * @param message the original raw message (original key, bytes and headers)
 * @param attempts how many times it was delivered
 * @param errorClass the class name of the last failure
 * @param errorMessage the last failure's message, bounded to {@link #MAX_ERROR_MESSAGE_LENGTH} characters
 */
public record DeadLetter(Message<byte[]> message, int attempts, String errorClass, String errorMessage) {

	/** Longest error message kept with a dead letter. */
	public static final int MAX_ERROR_MESSAGE_LENGTH = 1000;

	public DeadLetter {
		Objects.requireNonNull(message, "message");
		errorClass = (errorClass != null) ? errorClass : "unknown";
		errorMessage = bound(errorMessage);
	}

	/**
	 * Creates a dead letter from the last failure.
	 * @param message the original message
	 * @param attempts the delivery attempts made
	 * @param cause the last failure, may be {@code null}
	 * @return the dead letter
	 */
	public static DeadLetter of(Message<byte[]> message, int attempts, Throwable cause) {
		return (cause != null) ? new DeadLetter(message, attempts, cause.getClass().getName(), cause.getMessage())
				: new DeadLetter(message, attempts, "unknown", "reported failed by the listener");
	}

	private static String bound(String text) {
		if (text == null) {
			return "";
		}
		return (text.length() <= MAX_ERROR_MESSAGE_LENGTH) ? text : text.substring(0, MAX_ERROR_MESSAGE_LENGTH - 3) + "...";
	}

}

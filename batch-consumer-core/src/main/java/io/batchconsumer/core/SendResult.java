package io.batchconsumer.core;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of sending one message.
 *
 * @param topic the topic
 * @param partition the partition it was stored in, or -1 when it failed
 * @param offset its offset, or -1 when it failed
 * @param error why it failed, or {@code null} when it was stored
 */
public record SendResult(String topic, int partition, long offset, @Nullable Throwable error) {

	/**
	 * A stored message.
	 * @param topic the topic
	 * @param partition the partition
	 * @param offset the offset
	 * @return the result
	 */
	public static SendResult stored(String topic, int partition, long offset) {
		return new SendResult(topic, partition, offset, null);
	}

	/**
	 * A message that was not stored.
	 * @param topic the topic
	 * @param error why
	 * @return the result
	 */
	public static SendResult failed(String topic, @Nullable Throwable error) {
		return new SendResult(topic, -1, -1, error);
	}

	/**
	 * Whether the message was stored.
	 * @return {@code true} when stored
	 */
	public boolean isStored() {
		return this.error == null;
	}

}

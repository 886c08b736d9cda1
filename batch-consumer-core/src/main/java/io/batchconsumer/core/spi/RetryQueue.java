package io.batchconsumer.core.spi;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;

/**
 * The transport SPI for retries that do not hold a thread: a failed message whose next back-off is
 * longer than {@code retry.blocking-limit} is stored here with its attempt and due time, and the
 * original is finished (the watermark moves on, the worker is free). When due it comes back to the
 * same container through {@link #topic()}, which the container subscribes to as well, with the
 * headers {@link #ATTEMPT}, {@link #ORIGINAL_TOPIC}, {@link #ORIGINAL_PARTITION} and
 * {@link #ORIGINAL_OFFSET}.
 *
 * <p>Threading: called by worker threads, concurrently; implementations must be thread-safe.
 */
public interface RetryQueue {

	/** The header with the delivery attempt a retried message comes back with. */
	String ATTEMPT = "bc-attempt";

	/** The header with the topic the message was first read from. */
	String ORIGINAL_TOPIC = "bc-original-topic";

	/** The header with the partition it was first read from. */
	String ORIGINAL_PARTITION = "bc-original-partition";

	/** The header with the offset it was first read from. */
	String ORIGINAL_OFFSET = "bc-original-offset";

	/**
	 * The topic retried messages come back through; one per container.
	 * @return the topic
	 */
	String topic();

	/**
	 * Stores messages to deliver again at a time. Returns only when they are stored.
	 * @param messages the messages, each with the {@link Message#deliveryAttempt()} it comes back with
	 * @param dueAt when they are due
	 * @throws Exception when they could not be stored; the engine then retries in place
	 */
	void schedule(List<Message<byte[]>> messages, Instant dueAt) throws Exception;

	/**
	 * Stores messages of a slice of a known partition epoch ({@link SliceListener#epochStarted}); the
	 * engine calls this method, which by default calls {@link #schedule(List, Instant)}.
	 * @param messages the messages, each with the {@link Message#deliveryAttempt()} it comes back with
	 * @param dueAt when they are due
	 * @param epoch the epoch of the partition the messages were handed out in
	 * @throws Exception when they could not be stored; the engine then retries in place
	 */
	default void schedule(List<Message<byte[]>> messages, Instant dueAt, long epoch) throws Exception {
		schedule(messages, dueAt);
	}

	/**
	 * Whether this queue names the keys of the messages waiting in it ({@link #pendingKeys}), which
	 * {@code ordering=key} needs: a key whose message waits here holds its later messages back, and after
	 * a restart the container learns from here which keys are held.
	 * @return {@code false} by default: the container refuses the retry queue under {@code key} ordering
	 */
	default boolean namesPendingKeys() {
		return false;
	}

	/**
	 * The keys of the messages waiting in this queue whose origin ({@link #ORIGINAL_TOPIC},
	 * {@link #ORIGINAL_PARTITION}) is a partition: those not yet due, and those due and not yet
	 * consumed by the container (past its committed position of the retry topic). One entry per message,
	 * keyless messages left out. Called by the container's owner thread when the partition is assigned
	 * and, while it holds keys, about once a second.
	 * @param origin the partition the messages were first read from
	 * @return the keys, repeated once per message
	 * @throws Exception when the queue could not be read; the container asks again
	 * @throws UnsupportedOperationException unless {@link #namesPendingKeys()}
	 */
	default List<String> pendingKeys(TopicPartition origin) throws Exception {
		throw new UnsupportedOperationException(getClass().getName() + " does not name the keys waiting in it");
	}

	/**
	 * {@link #pendingKeys(TopicPartition)} for several partitions in one question: the container asks
	 * about every partition of a round at once (those just assigned, or those holding keys about once a
	 * second), so a queue that pays a round trip per question pays one per round. By default it asks
	 * about each partition in turn.
	 * @param origins the partitions the messages were first read from
	 * @return the keys of each of them, repeated once per message; a partition left out is asked again
	 * @throws Exception when the queue could not be read; the container asks again
	 * @throws UnsupportedOperationException unless {@link #namesPendingKeys()}
	 */
	default Map<TopicPartition, List<String>> pendingKeys(Collection<TopicPartition> origins) throws Exception {
		Map<TopicPartition, List<String>> keys = new LinkedHashMap<>();
		for (TopicPartition origin : origins) {
			keys.put(origin, pendingKeys(origin));
		}
		return keys;
	}

	/**
	 * The headers of a message as it goes to the retry queue: its own, the attempt, and where it was
	 * first read (kept when it was a retry already).
	 * @param message the message, with the attempt it comes back with
	 * @return the headers
	 */
	static java.util.Map<String, String> headersOf(Message<byte[]> message) {
		java.util.Map<String, String> headers = new java.util.LinkedHashMap<>(message.headers());
		headers.put(ATTEMPT, Integer.toString(message.deliveryAttempt()));
		headers.putIfAbsent(ORIGINAL_TOPIC, message.topic());
		headers.putIfAbsent(ORIGINAL_PARTITION, Integer.toString(message.partition()));
		headers.putIfAbsent(ORIGINAL_OFFSET, Long.toString(message.offset()));
		headers.remove(Message.DELIVER_AT_HEADER);
		return headers;
	}

	/**
	 * The headers of a message as it goes to this retry queue: its own, the attempt, and where it was
	 * first read. A message of the retry topic keeps the origin its headers name; any other message
	 * (a replayed dead letter may carry {@code bc-original-*} headers of its earlier life) is its own
	 * origin.
	 * @param message the message, with the attempt it comes back with
	 * @param retryTopic the topic of this retry queue ({@link #topic()})
	 * @return the headers
	 */
	static java.util.Map<String, String> headersOf(Message<byte[]> message, String retryTopic) {
		if (message.topic().equals(retryTopic)) {
			return headersOf(message);
		}
		java.util.Map<String, String> headers = new java.util.LinkedHashMap<>(message.headers());
		headers.put(ORIGINAL_TOPIC, message.topic());
		headers.put(ORIGINAL_PARTITION, Integer.toString(message.partition()));
		headers.put(ORIGINAL_OFFSET, Long.toString(message.offset()));
		return headersOf(new Message<>(message.topic(), message.partition(), message.offset(), message.key(),
				message.payload(), headers, message.timestamp(), message.deliveryAttempt(), message.serializedSize()));
	}

	/**
	 * The attempt a message read from a retry topic comes with: its {@link #ATTEMPT} header, else 1.
	 * @param message the message
	 * @return the message with that delivery attempt
	 */
	static Message<byte[]> restoreAttempt(Message<byte[]> message) {
		String attempt = message.headers().get(ATTEMPT);
		if (attempt == null) {
			return message;
		}
		try {
			int value = Integer.parseInt(attempt);
			return (value > 1) ? message.withDeliveryAttempt(value) : message;
		}
		catch (NumberFormatException ex) {
			return message;
		}
	}

}

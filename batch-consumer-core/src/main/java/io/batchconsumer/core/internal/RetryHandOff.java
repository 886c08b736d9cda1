package io.batchconsumer.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * Hands failed messages whose back-off exceeds {@code retry.blocking-limit} to the transport's
 * {@link RetryQueue}, due after the back-off: they are finished where they failed and come back
 * through the queue's topic, so no worker waits for them. The due time is taken from the engine's
 * {@link Ticker}. A message of the retry topic is delivered with the attempt its header names, and
 * its dead letter names the record it retries (topic, partition, offset from the headers) without
 * the retry headers, so the dead letter is listed and replayed under the original topic.
 *
 * <p>Threading: called by workers concurrently; holds no mutable state (the counter is a
 * {@code LongAdder}, the queue is thread-safe by its contract, {@link OwnWriteFailures} too).
 */
final class RetryHandOff {

	private static final Logger logger = LoggerFactory.getLogger(RetryHandOff.class);

	private final String id;

	private final RetryQueue queue;

	private final Counters counters;

	private final Ticker ticker;

	private final OwnWriteFailures writes;

	RetryHandOff(String id, RetryQueue queue, Counters counters, Ticker ticker, OwnWriteFailures writes) {
		this.id = id;
		this.queue = queue;
		this.counters = counters;
		this.ticker = ticker;
		this.writes = writes;
	}

	/** The transport's queue. */
	RetryQueue queue() {
		return this.queue;
	}

	/**
	 * Whether a container uses its retry queue: it has one and a back-off exceeds the blocking limit.
	 * @throws io.batchconsumer.core.InvalidOptionException when it would under {@code partition}
	 *         ordering, or under {@code key} ordering with a queue that cannot name the keys waiting in
	 *         it ({@link RetryQueue#namesPendingKeys()})
	 */
	static boolean isUsed(ContainerOptions options, RetryQueue queue) {
		if (queue == null || !options.usesRetryQueue()) {
			return false;
		}
		checkOrderingAllowsRetryQueue(options, queue);
		return true;
	}

	/** The options with the retry queue's topic added to the topics, unchanged without a queue. */
	static ContainerOptions subscribed(ContainerOptions options, RetryQueue queue) {
		if (queue == null) {
			return options;
		}
		List<String> topics = new ArrayList<>(options.topics());
		topics.add(queue.topic());
		return options.toBuilder().topics(topics).build();
	}

	/**
	 * A message sent to the retry queue would let later messages of its partition pass it, which
	 * {@code partition} ordering forbids; in {@code key} ordering its key holds them back
	 * ({@link RetryHolds}), which needs a queue that names the keys waiting in it after a restart. Refused
	 * otherwise, naming the properties.
	 */
	private static void checkOrderingAllowsRetryQueue(ContainerOptions options, RetryQueue queue) {
		if (options.ordering() == Ordering.UNORDERED
				|| (options.ordering() == Ordering.KEY && queue.namesPendingKeys())) {
			return;
		}
		String why = (options.ordering() == Ordering.KEY)
				? "later messages of their key would pass them after a restart, because this transport's retry queue "
						+ "(" + queue.topic() + ") cannot tell which keys wait in it (the JDBC and Kafka transports' can)"
				: "later messages of their partition would pass them";
		throw OptionDescriptor.RETRY_BLOCKING_LIMIT.invalid("(" + options.retryBlockingLimit()
				+ ") is below a back-off of retry.backoff/retry.levels, so failed messages of listener '"
				+ options.id() + "' would go to the retry queue and " + why + ", which ordering="
				+ options.ordering().name().toLowerCase(Locale.ROOT)
				+ " forbids: set ordering=unordered, or raise retry.blocking-limit above the longest back-off "
				+ "(retries then wait on their worker)", OptionDescriptor.RETRY_BACKOFF, OptionDescriptor.RETRY_LEVELS,
				OptionDescriptor.ORDERING, OptionDescriptor.RETRY_BLOCKING_LIMIT);
	}

	/**
	 * A message as the listener gets it: a retry with the attempt it carries, any other unchanged
	 * (a replayed dead letter may carry an attempt header of its earlier life).
	 * @param message the message as read
	 * @return the message to deliver
	 */
	Message<byte[]> restored(Message<byte[]> message) {
		return isRetry(message) ? RetryQueue.restoreAttempt(message) : message;
	}

	/**
	 * The dead letter of a message that failed its last attempt: a retry is recorded under its
	 * origin, without the headers of the retry queue; its {@link DeadLetter#message()} stays the
	 * retry record, which the container finishes.
	 * @param message the message
	 * @param cause its last failure, may be {@code null}
	 * @return the dead letter
	 */
	DeadLetter deadLetterOf(Message<byte[]> message, Throwable cause) {
		if (!isRetry(message)) {
			return DeadLetter.of(message, message.deliveryAttempt(), cause);
		}
		Map<String, String> headers = new LinkedHashMap<>(message.headers());
		String topic = headers.remove(RetryQueue.ORIGINAL_TOPIC);
		String partition = headers.remove(RetryQueue.ORIGINAL_PARTITION);
		String offset = headers.remove(RetryQueue.ORIGINAL_OFFSET);
		headers.remove(RetryQueue.ATTEMPT);
		headers.remove(Message.DELIVER_AT_HEADER);
		Message<byte[]> stripped = new Message<>(message.topic(), message.partition(), message.offset(), message.key(),
				message.payload(), headers, message.timestamp(), message.deliveryAttempt(), message.serializedSize());
		DeadLetter deadLetter = DeadLetter.of(stripped, message.deliveryAttempt(), cause);
		try {
			return deadLetter.withOrigin(new DeadLetter.Origin(topic, Integer.parseInt(partition), Long.parseLong(offset)));
		}
		catch (RuntimeException ex) {
			// No readable origin (a record someone else wrote to the retry topic): the retry record is all we know.
			logger.warn("{} of container '{}' has no readable origin headers; dead-lettered as a record of {}", message,
					this.id, message.topic());
			return deadLetter;
		}
	}

	private boolean isRetry(Message<byte[]> message) {
		return message.topic().equals(this.queue.topic());
	}

	/**
	 * Stores messages in the retry queue, due after the back-off.
	 * @param messages the messages, with the attempt they will be delivered with next
	 * @param backoff the back-off before that attempt
	 * @param epoch the epoch of the partition the messages were handed out in
	 * @return whether they were stored (finished here); {@code false} when the queue failed, and
	 *         they are retried in place
	 */
	boolean enqueue(List<Message<byte[]>> messages, Duration backoff, long epoch) {
		long started = this.ticker.nanoTime();
		try {
			this.queue.schedule(messages, Instant.ofEpochMilli(this.ticker.currentTimeMillis()).plus(backoff), epoch);
			this.counters.queuedForRetry.add(messages.size());
			this.writes.succeeded(OwnWriteFailures.RETRY_QUEUE);
			return true;
		}
		catch (Exception ex) {
			// The messages are tried in place after the back-off, and come back here when they fail again.
			this.writes.failed(OwnWriteFailures.RETRY_QUEUE, ex, backoff.plusNanos(this.ticker.nanoTime() - started));
			logger.warn("Container '{}' could not store {} messages in its retry queue, retrying them in place: {}",
					this.id, messages.size(), ex.toString());
			return false;
		}
	}

}

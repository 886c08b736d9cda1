package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.spi.DeadLetterSink;

/**
 * Writes dead letters to {@code <topic>.DLQ} of the topic the record was first read from
 * ({@link DeadLetter#origin()}: for a retry, the record it retries, not the retry topic): the
 * original key and value bytes, the original
 * headers (as the message carries them: UTF-8 text), and these headers (UTF-8 text):
 * <ul>
 * <li>{@code bc-original-topic}, {@code bc-original-partition}, {@code bc-original-offset} — where
 * the record was;</li>
 * <li>{@code bc-attempts} — how often it was delivered;</li>
 * <li>{@code bc-group} — the consumer group that dead-lettered it;</li>
 * <li>{@code bc-error-class}, {@code bc-error-message} — the last failure, the message bounded to
 * {@link DeadLetter#MAX_ERROR_MESSAGE_LENGTH} characters.</li>
 * </ul>
 * The key keeps the partitioning of the original topic's keys. {@link #send} returns only when the
 * broker acknowledged the record (acks from all in-sync replicas) and throws otherwise, so the
 * engine keeps the message uncommitted and tries again.
 *
 * <p>Threading: thread-safe; workers call it concurrently over the shared producer.
 */
public final class KafkaDeadLetterSink implements DeadLetterSink {

	/** The header names this sink adds. */
	public static final String ORIGINAL_TOPIC = "bc-original-topic";

	/** The original partition header. */
	public static final String ORIGINAL_PARTITION = "bc-original-partition";

	/** The original offset header. */
	public static final String ORIGINAL_OFFSET = "bc-original-offset";

	/** The delivery attempts header. */
	public static final String ATTEMPTS = "bc-attempts";

	/** The class name of the last failure. */
	public static final String ERROR_CLASS = "bc-error-class";

	/** The bounded message of the last failure. */
	public static final String ERROR_MESSAGE = "bc-error-message";

	/** The consumer group that dead-lettered the record. */
	public static final String GROUP = "bc-group";

	/** The headers this sink adds, which it replaces when a replayed record fails again. */
	static final Set<String> OURS = Set.of(ORIGINAL_TOPIC, ORIGINAL_PARTITION, ORIGINAL_OFFSET, ATTEMPTS,
			ERROR_CLASS, ERROR_MESSAGE, GROUP);

	private final SharedClients clients;

	private final DeadLetterTopics topics;

	private final Duration sendTimeout;

	private final String group;

	/** Told of each dead letter once stored (a share-group source acknowledges it with REJECT). */
	private java.util.function.Consumer<DeadLetter> stored = (deadLetter) -> {
	};

	KafkaDeadLetterSink(SharedClients clients, DeadLetterTopics topics, Duration sendTimeout, String group) {
		this.clients = clients;
		this.topics = topics;
		this.sendTimeout = sendTimeout;
		this.group = group;
	}

	/**
	 * Writes the dead letter and waits for the broker's acknowledgement.
	 * @param deadLetter the dead letter
	 * @throws Exception when it was not stored in time; nothing is committed past it then
	 */
	@Override
	public void send(DeadLetter deadLetter) throws Exception {
		Message<byte[]> message = deadLetter.message();
		String topic = DeadLetterTopics.of(deadLetter.origin().topic());
		this.topics.ensure(topic);
		ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, null, message.key(), message.payload(),
				headers(deadLetter, this.group));
		try {
			this.clients.producer().send(record).get(this.sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
			this.stored.accept(deadLetter);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
		catch (TimeoutException ex) {
			throw new TimeoutException("Dead letter of " + message + " to " + topic + " not acknowledged within "
					+ this.sendTimeout);
		}
	}

	/** Makes this sink tell {@code listener} of each dead letter it stored; returns this sink. */
	KafkaDeadLetterSink onStored(java.util.function.Consumer<DeadLetter> listener) {
		this.stored = listener;
		return this;
	}

	private static RecordHeaders headers(DeadLetter deadLetter, String group) {
		Message<byte[]> message = deadLetter.message();
		RecordHeaders headers = new RecordHeaders();
		for (Map.Entry<String, String> header : message.headers().entrySet()) {
			if (!OURS.contains(header.getKey())) {
				headers.add(header.getKey(), utf8(header.getValue()));
			}
		}
		DeadLetter.Origin origin = deadLetter.origin();
		headers.add(ORIGINAL_TOPIC, utf8(origin.topic()));
		headers.add(ORIGINAL_PARTITION, utf8(Integer.toString(origin.partition())));
		headers.add(ORIGINAL_OFFSET, utf8(Long.toString(origin.offset())));
		headers.add(ATTEMPTS, utf8(Integer.toString(deadLetter.attempts())));
		headers.add(ERROR_CLASS, utf8(deadLetter.errorClass()));
		headers.add(ERROR_MESSAGE, utf8(deadLetter.errorMessage()));
		headers.add(GROUP, utf8(group));
		return headers;
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}

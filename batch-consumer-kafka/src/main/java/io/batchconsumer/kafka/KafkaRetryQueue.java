package io.batchconsumer.kafka;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * The Kafka retry queue: a retried record goes at once to the container's retry topic
 * {@code bc.retry.<group>.<listener id>} with its attempt, origin and the {@code bc-deliver-at}
 * header; the container, subscribed to that topic too, holds it until due without a thread
 * (consumer-side holding, see {@link Message#DELIVER_AT_HEADER}). Limit: within a partition of the
 * retry topic a record due later holds back the records behind it.
 *
 * <p>It names the keys waiting in it ({@link #pendingKeys}), so {@code ordering=key} may use it: the
 * keyed records of the retry topic at or past the group's committed position, by their origin headers
 * ({@link PendingRetryRecords}).
 *
 * <p>Threading: thread-safe (the producer is; the pending records are synchronized).
 */
final class KafkaRetryQueue implements RetryQueue {

	/** Kafka's longest topic name. */
	static final int MAX_TOPIC_LENGTH = 249;

	private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]+");

	private final KafkaBatchProducer producer;

	private final String topic;

	private final PendingRetryRecords pending;

	KafkaRetryQueue(KafkaBatchProducer producer, String topic, PendingRetryRecords pending) {
		this.producer = producer;
		this.topic = topic;
		this.pending = pending;
	}

	static String topicOf(String group, String id) {
		return "bc.retry." + group + "." + id;
	}

	/**
	 * The retry topic of a container, checked against Kafka's rules for a topic name (letters,
	 * digits, '.', '_' and '-', at most {@value #MAX_TOPIC_LENGTH} characters), so that a group
	 * that breaks them stops the start, not every retry later. The listener id keeps to those
	 * characters by itself; the group need not, as Kafka takes any group id.
	 * @param options the container's options
	 * @return {@code bc.retry.<group>.<id>}
	 * @throws InvalidOptionException naming the group when the topic is not a valid name
	 */
	static String topicOf(ContainerOptions options) {
		String topic = topicOf(options.group(), options.id());
		String made = "('" + options.group() + "') makes the retry topic '" + topic + "' of listener '" + options.id()
				+ "'";
		if (!LEGAL_TOPIC.matcher(topic).matches()) {
			throw OptionDescriptor.GROUP.invalid(made + ", which Kafka refuses: a topic name is letters, digits, "
					+ "'.', '_' and '-'; choose a group of those characters");
		}
		if (topic.length() > MAX_TOPIC_LENGTH) {
			throw OptionDescriptor.GROUP.invalid(made + ", " + topic.length() + " characters, which Kafka refuses: "
					+ "a topic name is at most " + MAX_TOPIC_LENGTH + " characters; shorten the group or the listener id");
		}
		return topic;
	}

	@Override
	public String topic() {
		return this.topic;
	}

	@Override
	public void schedule(List<Message<byte[]>> messages, Instant dueAt) throws Exception {
		String at = Long.toString(dueAt.toEpochMilli());
		List<Object> outgoing = new ArrayList<>(messages.size());
		for (Message<byte[]> message : messages) {
			Map<String, String> headers = RetryQueue.headersOf(message, this.topic);
			headers.put(Message.DELIVER_AT_HEADER, at);
			outgoing.add(new OutgoingMessage(message.key(), headers, message.payload()));
		}
		for (SendResult result : this.producer.sendBatch(this.topic, outgoing)) {
			if (!result.isStored()) {
				throw (result.error() instanceof Exception ex) ? ex : new IllegalStateException(result.error());
			}
		}
	}

	@Override
	public boolean namesPendingKeys() {
		return true;
	}

	/**
	 * The keys of the records of the retry topic at or past the group's committed position whose origin is
	 * a partition. Costs one admin request (the group's committed offsets) and a read of the records
	 * added to the retry topic since the last call, with a consumer shared by the transport's retry queues.
	 * @throws Exception when the broker did not answer within 5 s
	 */
	@Override
	public List<String> pendingKeys(io.batchconsumer.core.TopicPartition origin) throws Exception {
		return this.pending.keysOf(origin);
	}

	/**
	 * The keys of several partitions for the cost of one: one admin request and one read.
	 * @throws Exception when the broker did not answer within 5 s
	 */
	@Override
	public Map<io.batchconsumer.core.TopicPartition, List<String>> pendingKeys(
			Collection<io.batchconsumer.core.TopicPartition> origins) throws Exception {
		return this.pending.keysOf(origins);
	}

}

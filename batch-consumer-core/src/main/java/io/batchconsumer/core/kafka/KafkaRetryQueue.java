package io.batchconsumer.core.kafka;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.RetryQueue;
import io.batchconsumer.core.SendResult;

/**
 * The Kafka retry queue: a retried record goes at once to the container's retry topic
 * {@code bc.retry.<group>.<listener id>} with its attempt, origin and the {@code bc-deliver-at}
 * header; the container, subscribed to that topic too, holds it until due without a thread
 * (consumer-side holding, see {@link Message#DELIVER_AT_HEADER}). Limit: within a partition of the
 * retry topic a record due later holds back the records behind it.
 *
 * <p>Threading: thread-safe (the producer is).
 */
final class KafkaRetryQueue implements RetryQueue {

	private final KafkaBatchProducer producer;

	private final String topic;

	KafkaRetryQueue(KafkaBatchProducer producer, String topic) {
		this.producer = producer;
		this.topic = topic;
	}

	static String topicOf(String group, String id) {
		return "bc.retry." + group + "." + id;
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

}

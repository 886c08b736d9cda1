package io.batchconsumer.rocketmq;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageQueue;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.OneWayFailures;

/**
 * A {@link BatchProducer} on the transport's shared {@code DefaultMQProducer}.
 *
 * <p>{@link #sendBatch} uses RocketMQ's batch send: messages without a key go in batches to a
 * queue the producer picks; messages with a key go to the queue of their key's hash
 * ({@code hash(key) mod queues}, over the topic's sorted queues), so one key stays in one queue
 * and in order; each group is split to RocketMQ's 4 MiB batch limit ({@link BatchSplitter}). A
 * batch is stored in one queue at consecutive offsets, so each message's result names its queue and
 * offset, or the batch's error. Only {@code SEND_OK} counts as stored.
 *
 * <p>{@link #sendOneWayBatch} sends each message one-way (no acknowledgement), keyed ones to their
 * key's queue; failures the client sees are logged and counted.
 *
 * <p>Headers travel as RocketMQ user properties. A header named like one of RocketMQ's own
 * properties ({@code KEYS}, {@code TAGS}, {@code DELAY}, ... — {@code MessageConst.STRING_HASH_SET})
 * or whose name is blank or holds RocketMQ's property separators (characters 1 and 2) cannot be
 * carried: both methods throw an {@link IllegalArgumentException} that names it, before any
 * message of the list is sent.
 *
 * <p>Threading: thread-safe; one-way failures are counted by a {@link OneWayFailures}.
 */
public final class RocketMqBatchProducer implements BatchProducer {

	private final SharedProducer producer;

	private final Names names;

	private final QueueNumbers numbers;

	private final Function<Object, byte[]> payloadSerializer;

	private final OneWayFailures oneWayFailures = new OneWayFailures();

	RocketMqBatchProducer(SharedProducer producer, Names names, QueueNumbers numbers,
			Function<Object, byte[]> payloadSerializer) {
		this.producer = producer;
		this.names = names;
		this.numbers = numbers;
		this.payloadSerializer = payloadSerializer;
	}

	@Override
	public List<SendResult> sendBatch(String topic, List<?> messages) {
		List<Message> records = records(topic, messages);
		SendResult[] results = new SendResult[records.size()];
		Map<MessageQueue, List<Integer>> byQueue = new LinkedHashMap<>();
		List<Integer> unkeyed = new ArrayList<>();
		try {
			for (int index = 0; index < records.size(); index++) {
				String key = records.get(index).getKeys();
				if (key == null) {
					unkeyed.add(index);
				}
				else {
					byQueue.computeIfAbsent(queueOf(key, records.get(index).getTopic()), (queue) -> new ArrayList<>())
						.add(index);
				}
			}
		}
		catch (Exception ex) {
			Arrays.fill(results, SendResult.failed(topic, ex));
			return Arrays.asList(results);
		}
		sendGroup(topic, records, unkeyed, null, results);
		byQueue.forEach((queue, indexes) -> sendGroup(topic, records, indexes, queue, results));
		return Arrays.asList(results);
	}

	private void sendGroup(String topic, List<Message> records, List<Integer> indexes, MessageQueue queue,
			SendResult[] results) {
		if (indexes.isEmpty()) {
			return;
		}
		List<Message> group = indexes.stream().map(records::get).toList();
		for (List<Integer> batch : BatchSplitter.split(group, BatchSplitter.MAX_BATCH_BYTES)) {
			List<Message> part = batch.stream().map(group::get).toList();
			List<SendResult> outcome = send(topic, part, queue);
			for (int i = 0; i < batch.size(); i++) {
				results[indexes.get(batch.get(i))] = outcome.get(i);
			}
		}
	}

	private List<SendResult> send(String topic, List<Message> batch, MessageQueue queue) {
		try {
			DefaultMQProducer client = this.producer.get();
			org.apache.rocketmq.client.producer.SendResult result = (queue != null) ? client.send(batch, queue)
					: client.send(batch);
			if (result.getSendStatus() != SendStatus.SEND_OK) {
				throw new IllegalStateException("The broker did not store the batch safely: " + result.getSendStatus());
			}
			MessageQueue stored = result.getMessageQueue();
			int partition = this.numbers.partition(stored).partition();
			List<SendResult> results = new ArrayList<>(batch.size());
			for (int i = 0; i < batch.size(); i++) {
				results.add(SendResult.stored(topic, partition, result.getQueueOffset() + i));
			}
			return results;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return failed(topic, batch.size(), ex);
		}
		catch (Exception ex) {
			return failed(topic, batch.size(), ex);
		}
	}

	private static List<SendResult> failed(String topic, int count, Exception error) {
		List<SendResult> results = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			results.add(SendResult.failed(topic, error));
		}
		return results;
	}

	@Override
	public void sendOneWayBatch(String topic, List<?> messages) {
		List<Message> records = records(topic, messages);
		for (Message record : records) {
			try {
				DefaultMQProducer client = this.producer.get();
				if (record.getKeys() != null) {
					client.sendOneway(record, queueOf(record.getKeys(), record.getTopic()));
				}
				else {
					client.sendOneway(record);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.oneWayFailures.failed(topic, ex);
				return;
			}
			catch (Exception ex) {
				this.oneWayFailures.failed(topic, ex);
			}
		}
	}

	/**
	 * How many messages of {@link #sendOneWayBatch} the client failed to hand to a broker, since this producer was made.
	 * @return the count
	 */
	public long failedOneWaySends() {
		return this.oneWayFailures.count();
	}


	/**
	 * The queue of a key: its hash over the topic's sorted writable queues.
	 */
	private MessageQueue queueOf(String key, String clientTopic) throws Exception {
		List<MessageQueue> queues = this.producer.queues(clientTopic);
		if (queues.isEmpty()) {
			throw new IllegalStateException("Topic " + clientTopic + " has no writable queue");
		}
		return queues.get(Math.floorMod(key.hashCode(), queues.size()));
	}

	private static void checkHeaderName(String name) {
		if (MessageConst.STRING_HASH_SET.contains(name)) {
			throw new IllegalArgumentException("Header '" + name + "' cannot be sent to RocketMQ: it is the name of one of"
					+ " RocketMQ's own message properties; rename it (a key goes in OutgoingMessage.key, a tag in its tag)");
		}
		if (name.isBlank() || name.indexOf(1) >= 0 || name.indexOf(2) >= 0) {
			throw new IllegalArgumentException("Header '" + RocketMqMessages.propertyValue(name)
					+ "' cannot be sent to RocketMQ: a property name must not be blank or hold the characters 1 and 2");
		}
	}

	/** Every record of the list, built before any is sent: a message that cannot be sent stops them all. */
	private List<Message> records(String topic, List<?> messages) {
		Objects.requireNonNull(topic, "topic");
		String clientTopic = this.names.wrap(topic);
		List<Message> records = new ArrayList<>(messages.size());
		for (Object element : messages) {
			Objects.requireNonNull(element, "a message of the batch is null");
			OutgoingMessage message = (element instanceof OutgoingMessage outgoing) ? outgoing
					: OutgoingMessage.of(null, element);
			Message record = new Message(clientTopic, this.payloadSerializer.apply(message.payload()));
			if (message.key() != null && !message.key().isBlank()) {
				record.setKeys(message.key());
			}
			RocketMqMessages.tag(record, message.tag());
			message.headers().forEach((name, value) -> {
				checkHeaderName(name);
				if (value != null && !value.isBlank()) {
					record.putUserProperty(name, RocketMqMessages.propertyValue(value));
				}
			});
			records.add(record);
		}
		return records;
	}

}

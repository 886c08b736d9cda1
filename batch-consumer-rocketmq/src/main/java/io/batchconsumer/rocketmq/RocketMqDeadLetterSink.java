package io.batchconsumer.rocketmq;

import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.MessageQueue;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.spi.DeadLetterSink;

/**
 * Writes dead letters to RocketMQ's dead-letter topic of the group, {@code %DLQ%<group>}: the
 * original body, key ({@code KEYS}) and user properties, and these user properties:
 * <ul>
 * <li>{@code bc-original-topic}, {@code bc-original-queue} (the partition number),
 * {@code bc-original-broker}, {@code bc-original-queue-id}, {@code bc-original-offset} — where the
 * message was;</li>
 * <li>{@code bc-attempts} — how often it was delivered;</li>
 * <li>{@code bc-error-class}, {@code bc-error-message} — the last failure.</li>
 * </ul>
 * {@link #send} returns only when the broker reported {@code SEND_OK} and throws otherwise, so the
 * engine keeps the message uncommitted and tries again. A write that finds the topic missing (a
 * broker with {@code autoCreateTopicEnable=false}) has it created on the broker of the original
 * queue, as that broker would for a RocketMQ consumer's send-back ({@link DeadLetterTopic}), and
 * writes there.
 *
 * <p>Threading: thread-safe; workers call it concurrently over the shared producer.
 */
public final class RocketMqDeadLetterSink implements DeadLetterSink {

	/** The original topic property. */
	public static final String ORIGINAL_TOPIC = "bc-original-topic";

	/** The original partition property (the transport's number of the queue). */
	public static final String ORIGINAL_QUEUE = "bc-original-queue";

	/** The original broker property. */
	public static final String ORIGINAL_BROKER = "bc-original-broker";

	/** The original queue id property. */
	public static final String ORIGINAL_QUEUE_ID = "bc-original-queue-id";

	/** The original offset property. */
	public static final String ORIGINAL_OFFSET = "bc-original-offset";

	/** The delivery attempts property. */
	public static final String ATTEMPTS = "bc-attempts";

	/** The class name of the last failure. */
	public static final String ERROR_CLASS = "bc-error-class";

	/** The bounded message of the last failure. */
	public static final String ERROR_MESSAGE = "bc-error-message";

	private final SharedProducer producer;

	private final QueueNumbers numbers;

	private final String topic;

	private final DeadLetterTopic creator;

	RocketMqDeadLetterSink(SharedProducer producer, QueueNumbers numbers, String clientTopic) {
		this.producer = producer;
		this.numbers = numbers;
		this.topic = clientTopic;
		this.creator = new DeadLetterTopic(producer, clientTopic);
	}

	/**
	 * The topic dead letters go to, as the broker knows it.
	 * @return {@code %DLQ%<group>}, inside the namespace
	 */
	public String topic() {
		return this.topic;
	}

	@Override
	public void send(DeadLetter deadLetter) throws Exception {
		Message<byte[]> message = deadLetter.message();
		org.apache.rocketmq.common.message.Message record = new org.apache.rocketmq.common.message.Message(this.topic,
				message.payload());
		if (message.key() != null) {
			record.setKeys(message.key());
		}
		// The engine's bc-* headers stay behind but the tag, so a selector or a replay still finds it.
		message.headers().forEach((name, value) -> {
			if ((!name.startsWith("bc-") || name.equals(Message.TAG_HEADER)) && !value.isBlank()) {
				record.putUserProperty(name, RocketMqMessages.propertyValue(value));
			}
		});
		RocketMqMessages.tag(record, message.tag());
		MessageQueue queue = this.numbers.queue(message.topicPartition());
		record.putUserProperty(ORIGINAL_TOPIC, message.topic());
		record.putUserProperty(ORIGINAL_QUEUE, Integer.toString(message.partition()));
		record.putUserProperty(ORIGINAL_BROKER, queue.getBrokerName());
		record.putUserProperty(ORIGINAL_QUEUE_ID, Integer.toString(queue.getQueueId()));
		record.putUserProperty(ORIGINAL_OFFSET, Long.toString(message.offset()));
		record.putUserProperty(ATTEMPTS, Integer.toString(deadLetter.attempts()));
		record.putUserProperty(ERROR_CLASS, deadLetter.errorClass());
		if (!deadLetter.errorMessage().isEmpty()) {
			record.putUserProperty(ERROR_MESSAGE, RocketMqMessages.propertyValue(deadLetter.errorMessage()));
		}
		SendResult result = write(record, queue);
		if (result.getSendStatus() != SendStatus.SEND_OK) {
			throw new IllegalStateException("Dead letter of " + message + " to " + this.topic + " was not stored safely: "
					+ result.getSendStatus());
		}
	}

	private SendResult write(org.apache.rocketmq.common.message.Message record, MessageQueue original)
			throws Exception {
		DefaultMQProducer client = this.producer.get();
		try {
			return client.send(record);
		}
		catch (MQClientException | MQBrokerException ex) {
			if (!DeadLetterTopic.missing(ex)) {
				throw ex;
			}
			return client.send(record, this.creator.createBeside(original, client.getSendMsgTimeout()));
		}
	}

}

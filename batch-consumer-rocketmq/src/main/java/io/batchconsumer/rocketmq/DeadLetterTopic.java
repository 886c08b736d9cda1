package io.batchconsumer.rocketmq;

import org.apache.rocketmq.client.common.ClientErrorCode;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a group's dead-letter topic {@code %DLQ%<group>} where and as the broker creates it
 * for RocketMQ's own consumers. Their last send-back of a message asks the broker that stores it,
 * and that broker creates the topic on itself whatever {@code autoCreateTopicEnable} says
 * ({@code createTopicInSendMessageBackMethod}): one read-write queue. This does the same on the
 * broker of the dead letter's original queue, when a write finds the topic missing, so that a
 * broker that creates no topics by itself does not hold the poison's queue back forever.
 *
 * <p>Creating a topic is an administrative request: under ACL the account needs that right, or
 * an operator creates the topic (one queue is enough) beside the group.
 *
 * <p>Threading: thread-safe; it holds no state beyond the shared producer, and creating a topic
 * that exists again (two workers at once) changes nothing.
 */
final class DeadLetterTopic {

	private static final Logger logger = LoggerFactory.getLogger(DeadLetterTopic.class);

	/** The queues the broker gives a dead-letter topic ({@code DLQ_NUMS_PER_GROUP}). */
	static final int QUEUES = 1;

	private final SharedProducer producer;

	private final String topic;

	DeadLetterTopic(SharedProducer producer, String clientTopic) {
		this.producer = producer;
		this.topic = clientTopic;
	}

	/**
	 * Whether a write failed because its topic does not exist: the name server has no route for
	 * it, or the broker does not know it.
	 * @param error the failure of a send
	 * @return whether creating the topic can help
	 */
	static boolean missing(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			int code = (cause instanceof MQClientException client) ? client.getResponseCode()
					: (cause instanceof MQBrokerException broker) ? broker.getResponseCode() : -1;
			if (code == ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION || code == ResponseCode.TOPIC_NOT_EXIST) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Creates the topic on the broker of a message's original queue.
	 * @param original the queue the dead letter was read from
	 * @param timeoutMillis how long the broker may take to answer
	 * @return the topic's queue on that broker, to write to while the name server may not route
	 * the topic yet
	 * @throws IllegalStateException when the broker cannot be found or refuses
	 */
	MessageQueue createBeside(MessageQueue original, long timeoutMillis) {
		MQClientInstance client = this.producer.get().getDefaultMQProducerImpl().getMqClientFactory();
		String broker = original.getBrokerName();
		String address = client.findBrokerAddressInPublish(broker);
		if (address == null) {
			// The dead-letter topic has no route yet: learn the broker's address from the original topic's.
			client.updateTopicRouteInfoFromNameServer(original.getTopic());
			address = client.findBrokerAddressInPublish(broker);
		}
		if (address == null) {
			throw new IllegalStateException("Dead-letter topic " + this.topic + " does not exist and broker " + broker
					+ " has no address at the name server");
		}
		TopicConfig config = new TopicConfig(this.topic, QUEUES, QUEUES, PermName.PERM_READ | PermName.PERM_WRITE);
		try {
			client.getMQClientAPIImpl().createTopic(address, TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, config,
					timeoutMillis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Creating dead-letter topic " + this.topic + " was interrupted", ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Dead-letter topic " + this.topic + " does not exist and broker " + broker
					+ " did not create it (create it with one queue, or allow this client to create topics): "
					+ ex.getMessage(), ex);
		}
		logger.info("Created dead-letter topic {} on broker {} ({} queue, read and write), as the broker does for "
				+ "a consumer's send-back", this.topic, broker, QUEUES);
		return new MessageQueue(this.topic, broker, 0);
	}

}

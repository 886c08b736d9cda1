package io.batchconsumer.core.rocketmq;

import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;

/**
 * Turns RocketMQ messages into ours: the queue offset is the offset, the {@code KEYS} property
 * is the key, the user properties are the headers (RocketMQ's own properties are left out).
 *
 * <p>Threading: stateless.
 */
final class RocketMqMessages {

	private RocketMqMessages() {
	}

	/**
	 * Converts a pulled message.
	 * @param message the message
	 * @param partition its partition
	 * @return our message
	 */
	static Message<byte[]> message(MessageExt message, TopicPartition partition) {
		byte[] body = (message.getBody() != null) ? message.getBody() : new byte[0];
		String keys = message.getKeys();
		String key = (keys != null && !keys.isEmpty()) ? keys : null;
		return Message.raw(partition.topic(), partition.partition(), message.getQueueOffset(), key, body,
				userProperties(message.getProperties()), message.getStoreTimestamp());
	}

	/**
	 * The user properties of a message: all but those RocketMQ reserves.
	 * @param properties every property
	 * @return the user properties
	 */
	static Map<String, String> userProperties(Map<String, String> properties) {
		if (properties == null || properties.isEmpty()) {
			return Map.of();
		}
		Map<String, String> user = new HashMap<>();
		for (Map.Entry<String, String> property : properties.entrySet()) {
			if (!MessageConst.STRING_HASH_SET.contains(property.getKey()) && property.getValue() != null) {
				user.put(property.getKey(), property.getValue());
			}
		}
		return user;
	}

	/**
	 * A property value RocketMQ can carry: its two separator characters are replaced.
	 * @param value any text
	 * @return the text without separators
	 */
	static String propertyValue(String value) {
		return value.replace((char) 1, ' ').replace((char) 2, ' ');
	}

}

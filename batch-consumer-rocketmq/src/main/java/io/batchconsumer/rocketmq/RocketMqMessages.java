package io.batchconsumer.rocketmq;

import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;

/**
 * Turns RocketMQ messages into ours: the queue offset is the offset, the {@code KEYS} property
 * is the key, the user properties are the headers (RocketMQ's own properties are left out) and the
 * {@code TAGS} property is the tag ({@link Message#tag()}) of a message that has no {@code bc-tag}.
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
				headers(message), message.getStoreTimestamp());
	}

	/** The user properties, plus RocketMQ's tag as {@link Message#TAG_HEADER} when they do not carry one. */
	private static Map<String, String> headers(MessageExt message) {
		Map<String, String> headers = userProperties(message.getProperties());
		String tag = message.getTags();
		if (tag == null || tag.isEmpty() || headers.containsKey(Message.TAG_HEADER)) {
			return headers;
		}
		Map<String, String> tagged = new HashMap<>(headers);
		tagged.put(Message.TAG_HEADER, tag);
		return tagged;
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
	 * Sets RocketMQ's own tag ({@code TAGS}, what subscription expressions select) of a record
	 * whose message has one; {@code bc-tag} travels with the other headers.
	 * @param record the record to send
	 * @param tag the message's tag, or {@code null}
	 */
	static void tag(org.apache.rocketmq.common.message.Message record, String tag) {
		if (tag != null && !tag.isBlank()) {
			record.setTags(tag);
		}
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

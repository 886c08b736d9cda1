package io.batchconsumer.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;

/**
 * Converts between Kafka's types and the engine's: records to raw messages (headers decoded as
 * UTF-8; a {@code null} value, a tombstone, becomes an empty payload; a {@code null} header value
 * becomes an empty string; of repeated header keys the last wins), partitions both ways, and
 * offsets to commit.
 *
 * <p>Threading: stateless.
 */
final class KafkaRecords {

	private static final byte[] EMPTY = new byte[0];

	private KafkaRecords() {
	}

	static Message<byte[]> message(ConsumerRecord<String, byte[]> record) {
		byte[] value = (record.value() != null) ? record.value() : EMPTY;
		return Message.raw(record.topic(), record.partition(), record.offset(), record.key(), value,
				headers(record.headers()), record.timestamp());
	}

	/**
	 * The message of a record the consumer could not deserialize, with whatever bytes it has.
	 * @param ex the consumer's exception
	 * @return the message: the key if it decodes, the value bytes or nothing, the headers
	 */
	static Message<byte[]> unreadable(RecordDeserializationException ex) {
		org.apache.kafka.common.TopicPartition partition = ex.topicPartition();
		String key = (ex.keyBuffer() != null) ? StandardCharsets.UTF_8.decode(ex.keyBuffer().duplicate()).toString() : null;
		return Message.raw(partition.topic(), partition.partition(), ex.offset(), key, bytes(ex.valueBuffer()),
				(ex.headers() != null) ? headers(ex.headers()) : null, ex.timestamp());
	}

	static Map<String, String> headers(Headers headers) {
		Header[] array = headers.toArray();
		if (array.length == 0) {
			return Map.of();
		}
		Map<String, String> map = new HashMap<>(array.length * 2);
		for (Header header : array) {
			map.put(header.key(), (header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : "");
		}
		return map;
	}

	static org.apache.kafka.common.TopicPartition kafka(TopicPartition partition) {
		return new org.apache.kafka.common.TopicPartition(partition.topic(), partition.partition());
	}

	static List<org.apache.kafka.common.TopicPartition> kafka(Collection<TopicPartition> partitions) {
		List<org.apache.kafka.common.TopicPartition> result = new ArrayList<>(partitions.size());
		for (TopicPartition partition : partitions) {
			result.add(kafka(partition));
		}
		return result;
	}

	static TopicPartition ours(org.apache.kafka.common.TopicPartition partition) {
		return new TopicPartition(partition.topic(), partition.partition());
	}

	static List<TopicPartition> ours(Collection<org.apache.kafka.common.TopicPartition> partitions) {
		List<TopicPartition> result = new ArrayList<>(partitions.size());
		for (org.apache.kafka.common.TopicPartition partition : partitions) {
			result.add(ours(partition));
		}
		return result;
	}

	static Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets(Map<TopicPartition, Long> offsets) {
		Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> result = new LinkedHashMap<>();
		offsets.forEach((partition, offset) -> result.put(kafka(partition), new OffsetAndMetadata(offset)));
		return result;
	}

	private static byte[] bytes(ByteBuffer buffer) {
		if (buffer == null) {
			return EMPTY;
		}
		ByteBuffer copy = buffer.duplicate();
		byte[] bytes = new byte[copy.remaining()];
		copy.get(bytes);
		return bytes;
	}

}

package io.batchconsumer.kafka;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A record that fails its CRC check on the consumer, made for real: records are
 * produced to the in-process broker one batch each, then one byte of one batch's value is flipped
 * inside the broker's log segment file. The broker serves the file as it is, and the consumer
 * ({@code check.crcs=true}, the default) fails the poll with a plain {@code KafkaException}.
 */
@Tag("integration")
class KafkaCorruptRecordTests extends SharedKafkaTransportTests {

	@Test
	void aRecordThatFailsItsCrcCheckGoesToTheDeadLetterTopicAndThePartitionMovesOn() throws Exception {
		String topic = "corrupt";
		broker.createTopic(topic, 1);
		produceOneBatchEach(topic, 20);
		corruptValue(topic, "value-007");
		ContainerOptions options = KafkaTransportTests.options("corrupt", topic).ordering(Ordering.UNORDERED).build();
		assertThat(KafkaConfigs.consumer(broker.clientProperties(), options, "test"))
			.doesNotContainEntry(ConsumerConfig.CHECK_CRCS_CONFIG, false);
		Set<Long> processed = ConcurrentHashMap.newKeySet();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			slice.forEach((message) -> processed.add(message.offset()));
			return BatchResult.success();
		}, transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 20L)));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		assertThat(processed).hasSize(19).doesNotContain(7L);
		List<ConsumerRecord<String, byte[]>> dead = broker.readAll(topic + ".DLQ", 1, Duration.ofSeconds(20));
		assertThat(dead).singleElement().satisfies((record) -> {
			assertThat(KafkaTransportTests.header(record, "bc-original-topic")).isEqualTo(topic);
			assertThat(KafkaTransportTests.header(record, "bc-original-partition")).isEqualTo("0");
			assertThat(KafkaTransportTests.header(record, "bc-original-offset")).isEqualTo("7");
			assertThat(KafkaTransportTests.header(record, "bc-error-message")).contains("stored crc");
			assertThat(record.value()).isEmpty();
		});
	}

	/** One send at a time with no linger: every record is a batch of its own, with its own CRC. */
	private static void produceOneBatchEach(String topic, int count) throws Exception {
		Map<String, Object> config = new HashMap<>(broker.clientProperties());
		config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
		config.put(ProducerConfig.ACKS_CONFIG, "all");
		try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(),
				new ByteArraySerializer())) {
			for (int i = 0; i < count; i++) {
				byte[] value = String.format("value-%03d", i).getBytes(StandardCharsets.UTF_8);
				producer.send(new ProducerRecord<>(topic, 0, "key-" + i, value)).get(30, TimeUnit.SECONDS);
			}
		}
	}

	/** Flips one bit of a value inside the partition's segment file, where the broker reads it from. */
	private static void corruptValue(String topic, String value) throws Exception {
		byte[] needle = value.getBytes(StandardCharsets.UTF_8);
		for (Path segment : broker.segments(topic, 0)) {
			byte[] bytes = Files.readAllBytes(segment);
			int at = indexOf(bytes, needle);
			if (at >= 0) {
				try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
					channel.write(ByteBuffer.wrap(new byte[] { (byte) (bytes[at + 2] ^ 0x01) }), at + 2);
					channel.force(true);
				}
				assertThat(indexOf(Files.readAllBytes(segment), needle)).as("the byte was flipped").isNegative();
				return;
			}
		}
		throw new IllegalStateException(value + " is in no segment of " + topic);
	}

	private static int indexOf(byte[] haystack, byte[] needle) {
		outer: for (int i = 0; i + needle.length <= haystack.length; i++) {
			for (int j = 0; j < needle.length; j++) {
				if (haystack[i + j] != needle[j]) {
					continue outer;
				}
			}
			return i;
		}
		return -1;
	}

}

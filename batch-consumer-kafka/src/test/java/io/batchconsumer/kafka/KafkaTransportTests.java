package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The Kafka source, dead-letter sink and engine together against an in-process broker.
 */
@Tag("integration")
class KafkaTransportTests extends SharedKafkaTransportTests {

	/** Records per partition of the volume test; {@code -Dkafka.soak.records=1000000} for a soak run. */
	private static final int VOLUME = Integer.getInteger("kafka.soak.records", 100_000);

	static ContainerOptions.Builder options(String id, String topic) {
		return ContainerOptions.builder(id)
			.topics(topic)
			.group("group-" + topic)
			.retryBackoff(Duration.ofMillis(1))
			.retryMaxBackoff(Duration.ofMillis(5))
			.pollTimeout(Duration.ofMillis(100))
			.shutdownTimeout(Duration.ofSeconds(10))
			.commitInterval(Duration.ofMillis(100));
	}

	@Test
	void theConsumerFetchesTwoMebibytesAPartitionIntoTheOperatingSystemsSocketBufferUnlessTheUserSetsOtherwise() {
		ContainerOptions options = options("fetch", "fetch").build();
		assertThat(KafkaConfigs.consumer(broker.clientProperties(), options, "test"))
			.containsEntry(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 2 * 1024 * 1024)
			.containsEntry(ConsumerConfig.RECEIVE_BUFFER_CONFIG, -1);
		Map<String, Object> user = new HashMap<>(broker.clientProperties());
		user.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "1048576");
		user.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 65536);
		assertThat(KafkaConfigs.consumer(user, options, "test"))
			.containsEntry(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "1048576")
			.containsEntry(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 65536);
	}

	private static BatchContainer start(ContainerOptions options, io.batchconsumer.core.SliceListener listener) {
		BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
				transport.deadLetterSink(options));
		container.start();
		return container;
	}

	@Test
	void processesEveryRecordOfSixPartitionsAndCommitsTheEndOffsets() throws Exception {
		String topic = "volume";
		int perPartition = VOLUME / 6;
		broker.createTopic(topic, 6);
		broker.fill(topic, 6, perPartition, (i) -> "payload-" + i);
		ProcessedRecords processed = new ProcessedRecords(6, perPartition);
		ContainerOptions options = options("volume", topic).ordering(Ordering.UNORDERED)
			.threadSize(4)
			.consumerBatchSize(100)
			.pullBatchSize(500)
			.build();
		BatchContainer container = start(options, processed);
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> processed.distinct() == 6L * perPartition);
			Map<Integer, Long> ends = broker.endOffsets(topic, 6);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(ends));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(container.stats().partitions())
				.allSatisfy((p) -> assertThat(p.endOffset()).isEqualTo(ends.get(p.partition().partition()))));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		assertThat(processed.duplicates()).isZero();
	}

	@Test
	void aBlockedRecordHoldsBackOnlyItsPartition() throws Exception {
		String topic = "blocked";
		broker.createTopic(topic, 3);
		broker.fill(topic, 3, 2_000, (i) -> "payload-" + i);
		CountDownLatch release = new CountDownLatch(1);
		ContainerOptions options = options("blocked", topic).ordering(Ordering.UNORDERED).threadSize(4).build();
		BatchContainer container = start(options, (slice) -> {
			for (Message<byte[]> message : slice) {
				if (message.partition() == 1 && message.offset() == 500) {
					release.await(60, TimeUnit.SECONDS);
				}
			}
			return BatchResult.success();
		});
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				Map<Integer, Long> committed = broker.committed(options.group(), topic);
				assertThat(committed).containsEntry(0, 2_000L).containsEntry(2, 2_000L);
			});
			assertThat(broker.committed(options.group(), topic).getOrDefault(1, 0L)).isLessThanOrEqualTo(500L);
			release.countDown();
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(broker.committed(options.group(), topic)).containsEntry(1, 2_000L));
		}
		finally {
			release.countDown();
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void aPoisonRecordGoesToTheDeadLetterTopicWithItsHeadersAndThePartitionMovesOn() throws Exception {
		String topic = "poison";
		broker.createTopic(topic, 2);
		broker.fill(topic, 2, 100, (i) -> (i == 42) ? "poison" : "payload-" + i);
		ContainerOptions options = options("poison", topic).retryMaxAttempts(2).build();
		BatchContainer container = start(options, (slice) -> {
			List<Message<byte[]>> poison = slice.stream()
				.filter((message) -> new String(message.payload(), StandardCharsets.UTF_8).equals("poison"))
				.toList();
			return poison.isEmpty() ? BatchResult.success() : BatchResult.failed(poison,
					new IllegalStateException("cannot digest offset " + poison.get(0).offset()));
		});
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
					broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 100L, 1, 100L)));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		List<ConsumerRecord<String, byte[]>> dead = broker.readAll(topic + ".DLQ", 2, Duration.ofSeconds(20));
		assertThat(dead).hasSize(2).allSatisfy((record) -> {
			assertThat(record.key()).isEqualTo("key-0");
			assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("poison");
			assertThat(header(record, "bc-original-topic")).isEqualTo(topic);
			assertThat(header(record, "bc-original-offset")).isEqualTo("42");
			assertThat(header(record, "bc-attempts")).isEqualTo("2");
			assertThat(header(record, "bc-error-class")).isEqualTo(IllegalStateException.class.getName());
			assertThat(header(record, "bc-error-message")).isEqualTo("cannot digest offset 42");
		});
		assertThat(dead).extracting((record) -> header(record, "bc-original-partition"))
			.containsExactlyInAnyOrder("0", "1");
	}

	@Test
	void aRecordThatCannotBeDeserializedGoesToTheDeadLetterTopicAndIsSkipped() throws Exception {
		String topic = "unreadable";
		broker.createTopic(topic, 1);
		broker.fill(topic, 1, 50, (i) -> "payload-" + i);
		ContainerOptions options = options("unreadable", topic).build();
		// key-3 stands for a corrupt record: a key the consumer fails to deserialize (offsets 3, 10, ...).
		Deserializer<String> keys = (t, bytes) -> {
			String key = new StringDeserializer().deserialize(t, bytes);
			if ("key-3".equals(key)) {
				throw new IllegalArgumentException("corrupt key");
			}
			return key;
		};
		Map<String, Object> config = KafkaConfigs.consumer(broker.clientProperties(), options, "test");
		KafkaMessageSource source = new KafkaMessageSource(options,
				new KafkaConsumer<>(config, keys, new ByteArrayDeserializer()), transport.deadLetterSink(options));
		ProcessedRecords processed = new ProcessedRecords(1, 50);
		BatchContainer container = new BatchContainer(options, source, processed, transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> processed.distinct() == 43);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 50L)));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		List<ConsumerRecord<String, byte[]>> dead = broker.readAll(topic + ".DLQ", 7, Duration.ofSeconds(20));
		assertThat(dead).hasSize(7).allSatisfy((record) -> {
			assertThat(record.key()).isEqualTo("key-3");
			assertThat(header(record, "bc-error-class")).isEqualTo(RecordDeserializationException.class.getName());
			assertThat(new String(record.value(), StandardCharsets.UTF_8))
				.isEqualTo("payload-" + header(record, "bc-original-offset"));
		});
	}

	/**
	 * A seek outside the partition's records (a mistyped offset from the endpoint) is refused and
	 * changes nothing. Kafka itself takes any offset: the consumer then finds it out of range and
	 * resets to {@code auto.offset.reset} (here the beginning: the whole partition delivered again;
	 * with {@code latest} every record until the end skipped; with {@code none} no poll succeeds
	 * again), after the engine committed the sought offset.
	 */
	@Test
	void aSeekOutsideThePartitionsRecordsIsRefusedAndDeliversNothingAgain() throws Exception {
		String topic = "seek-outside";
		ProcessedRecords processed = filled(topic, 1, 100);
		ContainerOptions options = options("seek-outside", topic).build();
		BatchContainer container = start(options, processed);
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 100L)));
			io.batchconsumer.core.TopicPartition partition = new io.batchconsumer.core.TopicPartition(topic, 0);
			assertThatThrownBy(() -> container.seek(partition, 1_000).get(10, TimeUnit.SECONDS))
				.as("a seek past the end offset 100")
				.isInstanceOf(ExecutionException.class)
				.hasCauseInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("1000");
			await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
				assertThat(processed.duplicates()).as("records delivered again").isZero();
				assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 100L));
			});
			container.seek(partition, 90).get(10, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(30)).until(() -> processed.duplicates() == 10);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	/**
	 * Static membership with two listeners of one group: the user's {@code group.instance.id} went to
	 * both containers' consumers as it was, so the second to join fenced the first.
	 */
	@Test
	void twoContainersOfOneGroupWithAStaticMemberIdEachConsumeTheirTopic() throws Exception {
		broker.createTopic("static-invoices", 2);
		broker.createTopic("static-refunds", 2);
		ProcessedRecords invoices = new ProcessedRecords(2, 500);
		ProcessedRecords refunds = new ProcessedRecords(2, 500);
		ContainerOptions first = options("invoices", "static-invoices").group("static-members").build();
		ContainerOptions second = options("refunds", "static-refunds").group("static-members").build();
		assertThat(KafkaConfigs.consumer(with(broker.clientProperties(), "group.instance.id", "billing-1"), first, "test"))
			.containsEntry("group.instance.id", "billing-1-invoices");
		try (KafkaTransport statics = new KafkaTransport(with(broker.clientProperties(), "group.instance.id", "billing-1"))) {
			BatchContainer a = new BatchContainer(first, statics.createSource(first), invoices, statics.deadLetterSink(first));
			BatchContainer b = new BatchContainer(second, statics.createSource(second), refunds,
					statics.deadLetterSink(second));
			a.start();
			b.start();
			try {
				// Both members joined before the records come, so a fenced one cannot have consumed its own.
				await().atMost(Duration.ofSeconds(30))
					.until(() -> a.stats().partitions().size() == 2 && b.stats().partitions().size() == 2);
				broker.fill("static-invoices", 2, 500, (i) -> "invoice-" + i);
				broker.fill("static-refunds", 2, 500, (i) -> "refund-" + i);
				await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
					assertThat(broker.committed("static-members", "static-invoices")).isEqualTo(Map.of(0, 500L, 1, 500L));
					assertThat(broker.committed("static-members", "static-refunds")).isEqualTo(Map.of(0, 500L, 1, 500L));
				});
				assertThat(invoices.distinct()).isEqualTo(1_000);
				assertThat(refunds.distinct()).isEqualTo(1_000);
			}
			finally {
				assertThat(a.stop()).isTrue();
				assertThat(b.stop()).isTrue();
			}
		}
	}

	static String header(ConsumerRecord<?, ?> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	static Map<String, Object> with(Map<String, Object> properties, String key, Object value) {
		Map<String, Object> copy = new HashMap<>(properties);
		copy.put(key, value);
		return copy;
	}

}

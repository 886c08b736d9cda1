package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchSendException;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The Kafka batch producer against an in-process broker.
 */
@Tag("integration")
class KafkaBatchProducerTests extends SharedKafkaTransportTests {

	@BeforeAll
	static void createTopics() throws Exception {
		for (String topic : List.of("plain", "keyed", "too-large", "one-way", "typed")) {
			broker.createTopic(topic, 3);
		}
	}

	@Test
	void sendBatchReportsThePartitionAndOffsetOfEveryRecordInOrder() {
		List<Object> messages = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			messages.add((i % 2 == 0) ? "text-" + i : ("bytes-" + i).getBytes(StandardCharsets.UTF_8));
		}
		List<SendResult> results = transport.producer().sendBatch("plain", messages);
		assertThat(results).hasSize(30).allSatisfy((result) -> {
			assertThat(result.isStored()).isTrue();
			assertThat(result.topic()).isEqualTo("plain");
			assertThat(result.partition()).isBetween(0, 2);
			assertThat(result.offset()).isNotNegative();
		});
		assertThat(results).extracting((result) -> result.partition() + "@" + result.offset()).doesNotHaveDuplicates();
		List<ConsumerRecord<String, byte[]>> stored = broker.readAll("plain", 30, Duration.ofSeconds(20));
		for (int i = 0; i < 30; i++) {
			SendResult result = results.get(i);
			ConsumerRecord<String, byte[]> record = stored.stream()
				.filter((r) -> r.partition() == result.partition() && r.offset() == result.offset())
				.findFirst()
				.orElseThrow();
			assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo(((i % 2 == 0) ? "text-" : "bytes-") + i);
		}
	}

	@Test
	void recordsWithOneKeyLandInOnePartitionInTheOrderSentWithTheirHeaders() {
		List<OutgoingMessage> messages = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			messages.add(new OutgoingMessage("customer-7", Map.of("trace", "t-" + i), "order-" + i));
		}
		List<SendResult> results = transport.producer().sendBatch("keyed", messages);
		assertThat(results).extracting(SendResult::partition).containsOnly(results.get(0).partition());
		assertThat(results).extracting(SendResult::offset).isSorted().doesNotHaveDuplicates();
		List<ConsumerRecord<String, byte[]>> stored = broker.readAll("keyed", 20, Duration.ofSeconds(20));
		assertThat(stored).hasSize(20).allSatisfy((record) -> assertThat(record.key()).isEqualTo("customer-7"));
		assertThat(stored).extracting((record) -> KafkaTransportTests.header(record, "trace"))
			.containsExactlyElementsOf(messages.stream().map((m) -> m.headers().get("trace")).toList());
	}

	@Test
	void aRecordTheBrokerRejectsFailsAloneInTheBatch() {
		List<Object> messages = List.of("small", new byte[2 * 1024 * 1024], "small too");
		List<SendResult> results = transport.producer().sendBatch("too-large", messages);
		assertThat(results.get(0).isStored()).isTrue();
		assertThat(results.get(1).isStored()).isFalse();
		assertThat(results.get(1).error()).isInstanceOf(RecordTooLargeException.class);
		assertThat(results.get(1).partition()).isEqualTo(-1);
		assertThat(results.get(2).isStored()).isTrue();
	}

	@Test
	void sendBatchOrThrowThrowsWithEveryResultWhenOneRecordIsRejected() {
		List<Object> messages = List.of("small", new byte[2 * 1024 * 1024], "small too");
		BatchSendException thrown = catchThrowableOfType(BatchSendException.class,
				() -> transport.producer().sendBatchOrThrow("too-large", messages));
		assertThat(thrown).hasMessage("1 of 3 messages were not stored in topic 'too-large'")
			.hasCauseInstanceOf(RecordTooLargeException.class);
		assertThat(thrown.results()).extracting(SendResult::isStored).containsExactly(true, false, true);
		assertThat(thrown.failures()).singleElement()
			.satisfies((result) -> assertThat(result.error()).isInstanceOf(RecordTooLargeException.class));
		assertThat(transport.producer().sendBatchOrThrow("too-large", List.of("fits", "fits too")))
			.hasSize(2)
			.allSatisfy((result) -> assertThat(result.isStored()).isTrue());
	}

	@Test
	void sendOneWayBatchDoesNotWaitAndCountsWhatFailed() {
		KafkaBatchProducer producer = transport.producer();
		long failedBefore = producer.failedOneWaySends();
		producer.sendOneWayBatch("one-way", List.of("a", "b", "c", new byte[2 * 1024 * 1024]));
		assertThat(broker.readAll("one-way", 3, Duration.ofSeconds(20))).hasSize(3);
		await().atMost(Duration.ofSeconds(10)).until(() -> producer.failedOneWaySends() == failedBefore + 1);
	}

	@Test
	void anObjectPayloadNeedsASerializerAndNothingOfTheBatchIsSentWithoutOne() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> transport.producer().sendBatch("typed", List.of("fine", new Object[] { 1 })))
			.withMessageContaining("cannot be sent");
		try (KafkaTransport json = new KafkaTransport(broker.clientProperties(),
				(payload) -> ("{\"value\":" + payload + "}").getBytes(StandardCharsets.UTF_8))) {
			assertThat(json.producer().send("typed", 42).isStored()).isTrue();
		}
		List<ConsumerRecord<String, byte[]>> stored = broker.readAll("typed", 1, Duration.ofSeconds(20));
		assertThat(stored).extracting((record) -> new String(record.value(), StandardCharsets.UTF_8))
			.containsExactly("{\"value\":42}");
	}

}

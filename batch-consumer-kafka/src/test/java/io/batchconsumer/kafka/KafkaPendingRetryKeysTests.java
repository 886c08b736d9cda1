package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RetryQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka retry queue names the keys waiting in it, by origin partition: the keyed records of the
 * retry topic at or past the group's committed position, whichever instance moved that position.
 */
@Tag("integration")
class KafkaPendingRetryKeysTests extends SharedKafkaTransportTests {

	private static final String ORIGIN = "pending-origin";

	@Test
	void namesTheKeysOfAPartitionsRetriesUntilTheGroupsPositionPassesThemAndAgainWhenItMovesBack() throws Exception {
		ContainerOptions options = KafkaTransportTests.options("pending", ORIGIN).ordering(Ordering.KEY)
			.retryBlockingLimit(Duration.ofMillis(100)).retryLevels("1m").build();
		RetryQueue queue = transport.retryQueue(options);
		TopicPartition first = new TopicPartition(ORIGIN, 0);
		TopicPartition second = new TopicPartition(ORIGIN, 1);
		assertThat(queue.namesPendingKeys()).isTrue();
		assertThat(queue.pendingKeys(first)).isEmpty();
		queue.schedule(List.of(message(0, 5, "a"), message(0, 6, "a"), message(1, 7, "b"), message(0, 8, null)),
				Instant.now().plus(Duration.ofMinutes(1)));
		assertThat(queue.pendingKeys(first)).containsExactly("a", "a");
		assertThat(queue.pendingKeys(second)).containsExactly("b");
		assertThat(queue.pendingKeys(new TopicPartition("other", 0))).isEmpty();
		try (Admin admin = Admin.create(broker.clientProperties())) {
			commit(admin, options.group(), queue.topic(), true);
			assertThat(queue.pendingKeys(first)).as("consumed by any instance of the group").isEmpty();
			assertThat(queue.pendingKeys(second)).isEmpty();
			commit(admin, options.group(), queue.topic(), false);
			assertThat(queue.pendingKeys(first)).as("the group's position moved back").containsExactly("a", "a");
		}
		assertThat(transport.retryQueue(options).pendingKeys(first)).as("read by a new container")
			.containsExactly("a", "a");
	}

	@Test
	void namesTheKeysOfSeveralPartitionsWithOneQuestionToTheBroker() throws Exception {
		ContainerOptions options = KafkaTransportTests.options("pending-many", ORIGIN).ordering(Ordering.KEY)
			.retryBlockingLimit(Duration.ofMillis(100)).retryLevels("1m").build();
		RetryQueue queue = transport.retryQueue(options);
		queue.schedule(List.of(message(0, 5, "a"), message(1, 7, "b"), message(1, 9, "b"), message(2, 3, null)),
				Instant.now().plus(Duration.ofMinutes(1)));
		TopicPartition first = new TopicPartition(ORIGIN, 0);
		TopicPartition second = new TopicPartition(ORIGIN, 1);
		TopicPartition third = new TopicPartition(ORIGIN, 2);
		AtomicInteger questions = new AtomicInteger();
		try (Admin admin = Admin.create(broker.clientProperties());
				RetryTopicReader reader = new RetryTopicReader(broker.clientProperties())) {
			PendingRetryRecords pending = new PendingRetryRecords(queue.topic(), options.group(), () -> {
				questions.incrementAndGet();
				return admin;
			}, reader);
			Map<TopicPartition, List<String>> keys = pending.keysOf(List.of(first, second, third));
			assertThat(questions).as("admin requests").hasValue(1);
			assertThat(keys).containsOnlyKeys(first, second, third);
			assertThat(keys.get(first)).containsExactly("a");
			assertThat(keys.get(second)).containsExactly("b", "b");
			assertThat(keys.get(third)).isEmpty();
		}
		assertThat(queue.pendingKeys(List.of(first, second))).as("through the retry queue")
			.isEqualTo(Map.of(first, List.of("a"), second, List.of("b", "b")));
	}

	private static Message<byte[]> message(int partition, long offset, String key) {
		return Message.raw(ORIGIN, partition, offset, key, "payload".getBytes(StandardCharsets.UTF_8), null, 0L)
			.withDeliveryAttempt(2);
	}

	/** Commits the group's position of every partition of a topic: at its end, or at its beginning. */
	private static void commit(Admin admin, String group, String topic, boolean atTheEnd) throws Exception {
		int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
			.partitions().size();
		Map<org.apache.kafka.common.TopicPartition, OffsetSpec> ends = new HashMap<>();
		for (int partition = 0; partition < partitions; partition++) {
			ends.put(new org.apache.kafka.common.TopicPartition(topic, partition), OffsetSpec.latest());
		}
		Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
		admin.listOffsets(ends).all().get(10, TimeUnit.SECONDS).forEach((partition, end) ->
				positions.put(partition, new OffsetAndMetadata(atTheEnd ? end.offset() : 0L)));
		admin.alterConsumerGroupOffsets(group, positions).all().get(10, TimeUnit.SECONDS);
	}

}

package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tag subscriptions and message filters on Kafka (the tag is the {@code bc-tag} header): the
 * listener sees exactly the selected records, every partition is committed to its end offset,
 * a filtered run at the tail included, and the filtered counter counts the rest.
 */
@Tag("integration")
class KafkaTagFilterTests extends SharedKafkaTransportTests {

	private static final String[] TAGS = { "created", "paid", "shipped", null };

	@Test
	void listenerSeesExactlyTheSelectedTagsAndEveryPartitionIsCommittedToItsEnd() throws Exception {
		String topic = "tagged";
		broker.createTopic(topic, 3);
		int total = 3000;
		List<Object> batch = new ArrayList<>();
		Set<Integer> expected = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < total; i++) {
			String tag = TAGS[i % TAGS.length];
			batch.add(OutgoingMessage.builder().key("k" + (i % 41)).tag(tag).payload(Integer.toString(i)).build());
			if (("created".equals(tag) || "paid".equals(tag)) && i % 10 != 0) {
				expected.add(i);
			}
		}
		for (int i = total; i < total + 60; i++) {
			batch.add(OutgoingMessage.builder().key("k" + (i % 41)).tag("shipped").payload(Integer.toString(i)).build());
		}
		assertThat(transport.producer().sendBatch(topic, batch)).allMatch(SendResult::isStored);
		ContainerOptions options = KafkaTransportTests.options("tagged", topic).ordering(Ordering.KEY).threadSize(4)
			.tags("created || paid").build();
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		AtomicInteger deliveries = new AtomicInteger();
		MessageFilter notTenth = (message) -> value(message) % 10 != 0;
		BatchContainer container = BatchContainer.builder(options, transport.createSource(options), (slice) -> {
			for (Message<byte[]> message : slice) {
				seen.add(value(message));
				deliveries.incrementAndGet();
			}
			return BatchResult.success();
		}, transport.deadLetterSink(options)).filter(notTenth).build();
		container.start();
		try {
			Map<Integer, Long> ends = broker.endOffsets(topic, 3);
			await().atMost(Duration.ofSeconds(60)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(ends));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		assertThat(seen).isEqualTo(expected);
		assertThat(deliveries.get()).isEqualTo(expected.size());
		assertThat(container.stats().messagesFiltered()).isEqualTo(total + 60 - expected.size());
	}

	private static int value(Message<byte[]> message) {
		return Integer.parseInt(new String(message.payload(), StandardCharsets.UTF_8));
	}

}

package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendOptions;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delayed sends on Kafka (consumer-side holding through the {@code bc-deliver-at} header): a
 * record sent with a 2 s delay is not delivered before 2 s and is delivered within 2 s + 1 s,
 * while another partition flows meanwhile.
 */
@Tag("integration")
class KafkaDelayedSendTests extends SharedKafkaTransportTests {

	/** The partition Kafka's default partitioner gives a key. */
	private static int partitionOf(String key, int partitions) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(bytes))
				% partitions;
	}

	@Test
	void aRecordSentWithATwoSecondDelayArrivesAfterTwoSecondsAndWithinThree() throws Exception {
		String topic = "later";
		broker.createTopic(topic, 2);
		Map<String, Long> arrivals = new ConcurrentHashMap<>();
		ContainerOptions options = KafkaTransportTests.options("later", topic).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			for (Message<byte[]> message : slice) {
				arrivals.put(new String(message.payload(), StandardCharsets.UTF_8), System.currentTimeMillis());
			}
			return BatchResult.success();
		}, transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> container.stats().partitions().size() == 2);
			long sentAt = System.currentTimeMillis();
			List<SendResult> delayed = transport.producer().sendBatch(topic,
					List.of(OutgoingMessage.of("a", "delayed")), SendOptions.delay(Duration.ofSeconds(2)));
			int delayedPartition = delayed.get(0).partition();
			String otherKey = "b";
			for (int i = 0; i < 100 && partitionOf(otherKey, 2) == delayedPartition; i++) {
				otherKey = "b" + i;
			}
			List<SendResult> now = transport.producer().sendBatch(topic, List.of(OutgoingMessage.of(otherKey, "now")));
			assertThat(now.get(0).partition()).as("the other record on the other partition").isNotEqualTo(delayedPartition);
			await().atMost(Duration.ofSeconds(5)).until(() -> arrivals.containsKey("now"));
			await().atMost(Duration.ofSeconds(10)).until(() -> arrivals.containsKey("delayed"));
			long lateness = arrivals.get("delayed") - sentAt;
			assertThat(arrivals.get("now")).isLessThan(arrivals.get("delayed"));
			assertThat(lateness).as("delayed record arrival after send, ms").isGreaterThanOrEqualTo(2000).isLessThan(3000);
			System.out.printf("delayed send on Kafka: sent with 2 s delay, delivered after %d ms%n", lateness);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

}

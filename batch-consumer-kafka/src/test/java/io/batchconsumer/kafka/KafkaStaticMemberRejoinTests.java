package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A static member of the consumer group protocol (KIP-848) started while the group still holds a
 * member with its instance id (a killed life stays until its session ends): the group refuses it,
 * the container reports its source unavailable, and joins and consumes once the other member is
 * gone, instead of staying refused for good.
 */
@Tag("integration")
class KafkaStaticMemberRejoinTests {

	private static final SharedKafka broker = SharedKafka.instance();

	@Test
	void aStaticMemberRefusedWhileTheGroupHoldsItsInstanceIdJoinsOnceItIsReleasedAndConsumes() throws Exception {
		String topic = "static-rejoin";
		broker.createTopic(topic, 2);
		Map<String, Object> properties = broker.clientProperties();
		properties.put("group.protocol", "consumer");
		properties.put("group.instance.id", "node-1");
		ContainerOptions options = KafkaTransportTests.options("rejoin", topic).group(topic).build();
		broker.fill(topic, 2, 10, (i) -> "payload-" + i);
		AtomicLong processed = new AtomicLong();
		// The member the group still holds: a consumer with the container's instance id, as a killed
		// life stays in the group until its session ends.
		KafkaConsumer<String, byte[]> holder = new KafkaConsumer<>(KafkaConfigs.consumer(properties, options, "i"),
				new StringDeserializer(), new ByteArrayDeserializer());
		try (KafkaTransport transport = new KafkaTransport(properties)) {
			holder.subscribe(List.of(topic));
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				holder.poll(Duration.ofMillis(100));
				return !holder.assignment().isEmpty();
			});
			BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
				processed.addAndGet(slice.size());
				return BatchResult.success();
			}, transport.deadLetterSink(options));
			container.start();
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().sourceError() != null);
				assertThat(processed).hasValue(0);
				holder.close(Duration.ofSeconds(5));
				await().atMost(Duration.ofSeconds(20)).until(() -> processed.get() == 20);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
		finally {
			holder.close(Duration.ZERO);
		}
	}

}

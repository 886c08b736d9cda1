package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Commits follow the work on Kafka: with a commit interval and a poll timeout of a minute, the last
 * records of every partition are committed long before either, because each partition that goes
 * idle gets its idle commit, one after the other (Kafka calls a commit back from inside a poll that
 * would otherwise go on blocking until its timeout). A partition whose next records are only on
 * their way is not idle: the source knows it is behind from the consumer's lag.
 */
@Tag("integration")
class KafkaCommitFollowsWorkTests extends SharedKafkaTransportTests {

	@Test
	void everyIdlePartitionIsCommittedWithoutWaitingForTheIntervalOrThePollTimeout() throws Exception {
		String topic = "idle-commits";
		ProcessedRecords processed = filled(topic, 4, 200);
		ContainerOptions options = ContainerOptions.builder("idle-commits").topics(topic).group("group-" + topic)
			.ordering(Ordering.UNORDERED).threadSize(4).consumerBatchSize(50).pullBatchSize(100)
			.commitInterval(Duration.ofMinutes(1)).pollTimeout(Duration.ofMinutes(1))
			.shutdownTimeout(Duration.ofSeconds(10)).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), processed,
				transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> processed.distinct() == 800);
			Map<Integer, Long> ends = broker.endOffsets(topic, 4);
			// The interval (1 min) would come much later; idle commits come an idle linger (0.6 s) after.
			await().atMost(Duration.ofSeconds(20)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(ends));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void aPartitionIsBehindUntilItsRecordsWerePolledToTheEnd() throws Exception {
		String topic = "behind";
		filled(topic, 1, 50);
		ContainerOptions options = ContainerOptions.builder("behind").topics(topic).group("group-" + topic)
			.pullBatchSize(10).build();
		TopicPartition partition = new TopicPartition(topic, 0);
		try (MessageSource source = transport.createSource(options)) {
			assertThat(source.isBehind(partition)).as("not assigned").isFalse();
			source.subscribe(List.of(topic), new RebalanceListener() {
				@Override
				public void onAssigned(Collection<TopicPartition> partitions) {
				}

				@Override
				public void onRevoked(Collection<TopicPartition> partitions) {
				}
			});
			List<Message<byte[]>> polled = new ArrayList<>();
			await().atMost(Duration.ofSeconds(30)).until(() -> polled.addAll(source.poll(Duration.ofMillis(100))));
			// One fetch brought all 50 into the consumer; a poll hands out 10: the rest waits.
			assertThat(polled).hasSize(10);
			assertThat(source.isBehind(partition)).isTrue();
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				polled.addAll(source.poll(Duration.ofMillis(100)));
				return polled.size() == 50;
			});
			assertThat(source.isBehind(partition)).isFalse();
		}
	}

}

package io.batchconsumer.core.kafka;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Commits follow the work on Kafka: with a commit interval and a poll timeout of a minute, the last
 * records of every partition are committed long before either, because each partition that goes
 * idle gets its idle commit, one after the other (Kafka calls a commit back from inside a poll that
 * would otherwise go on blocking until its timeout).
 */
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

}

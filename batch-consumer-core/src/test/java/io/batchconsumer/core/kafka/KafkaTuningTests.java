package io.batchconsumer.core.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Runtime tuning on Kafka: the transport's default pull size (2000) and count threshold (4000) apply
 * to options started from {@link KafkaTransport#optionsBuilder}; a {@code KafkaConsumer} cannot change
 * {@code max.poll.records} while running, so a change of {@code pull-batch-size} is refused and
 * changes nothing, while the thread size does change and every record is still processed once.
 */
class KafkaTuningTests extends SharedKafkaTransportTests {

	@Test
	void aPollOfTheDefaultPullSizeFitsTwiceUnderTheDefaultCountThreshold() {
		ContainerOptions options = transport.optionsBuilder("defaults").topics("defaults").build();
		assertThat(options.pullBatchSize()).isEqualTo(KafkaTransport.DEFAULT_PULL_BATCH_SIZE);
		// At 1000 against pulls of 2000 flow control stopped fetching after nearly every poll at zero work.
		assertThat(options.pullThresholdForQueue()).isEqualTo(KafkaTransport.DEFAULT_PULL_THRESHOLD_FOR_QUEUE)
			.isGreaterThanOrEqualTo(2 * options.pullBatchSize());
	}

	@Test
	void thePullSizeIsRefusedTheThreadSizeChanges() throws Exception {
		String topic = "tuning";
		broker.createTopic(topic, 2);
		broker.fill(topic, 2, 2_000, (i) -> "payload-" + i);
		ProcessedRecords processed = new ProcessedRecords(2, 2_000);
		ContainerOptions options = transport.optionsBuilder("tuning").topics(topic).group("group-" + topic)
			.ordering(Ordering.KEY).threadSize(2).commitInterval(Duration.ofMillis(100))
			.shutdownTimeout(Duration.ofSeconds(10)).build();
		assertThat(options.pullBatchSize()).isEqualTo(KafkaTransport.DEFAULT_PULL_BATCH_SIZE);
		BatchContainer container = new BatchContainer(options, transport.createSource(options), processed,
				transport.deadLetterSink(options));
		container.start();
		try {
			assertThatThrownBy(() -> container.tune(Map.of("pull-batch-size", 100, "thread-size", 6))
				.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.cause().isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("pull-batch-size");
			assertThat(container.options()).isEqualTo(options);
			container.tune(Map.of("thread-size", 6)).get(10, TimeUnit.SECONDS);
			assertThat(container.stats().threadSize()).isEqualTo(6);
			await().atMost(Duration.ofSeconds(60)).until(() -> processed.distinct() == 4_000);
			Map<Integer, Long> ends = broker.endOffsets(topic, 2);
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(ends));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		assertThat(processed.duplicates()).isZero();
	}

}

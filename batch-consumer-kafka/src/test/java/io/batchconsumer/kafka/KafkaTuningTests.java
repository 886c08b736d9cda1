package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SliceListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Kafka's defaults and runtime tuning: the transport's default pull size (2000), count threshold (4000)
 * and span (8000) apply to options started from {@link KafkaTransport#optionsBuilder}, so a held
 * partition stops fetching by count, never by span; a {@code KafkaConsumer} cannot change
 * {@code max.poll.records} while running, so a change of {@code pull-batch-size} is refused and
 * changes nothing, while the thread size does change and every record is still processed once.
 */
@Tag("integration")
class KafkaTuningTests extends SharedKafkaTransportTests {

	@Test
	void aPollOfTheDefaultPullSizeFitsTwiceUnderTheDefaultCountThreshold() {
		ContainerOptions options = transport.optionsBuilder("defaults").topics("defaults").build();
		assertThat(options.pullBatchSize()).isEqualTo(KafkaTransport.DEFAULT_PULL_BATCH_SIZE);
		// At 1000 against pulls of 2000 flow control stopped fetching after nearly every poll at zero work.
		assertThat(options.pullThresholdForQueue()).isEqualTo(KafkaTransport.DEFAULT_PULL_THRESHOLD_FOR_QUEUE)
			.isGreaterThanOrEqualTo(2 * options.pullBatchSize());
		// At the generic 2000 (one poll) two polls of one partition stopped fetching by span at zero work.
		assertThat(options.maxSpan()).isEqualTo(KafkaTransport.DEFAULT_MAX_SPAN)
			.isGreaterThan(options.pullThresholdForQueue() + options.pullBatchSize());
	}

	@Test
	void aHeldPartitionStopsFetchingByCountNotBySpanAndLosesNothing() throws Exception {
		String topic = "held";
		ProcessedRecords processed = filled(topic, 1, 10_000);
		CountDownLatch release = new CountDownLatch(1);
		SliceListener held = (slice) -> {
			release.await();
			return processed.onSlice(slice);
		};
		ContainerOptions options = transport.optionsBuilder("held").topics(topic).group("group-" + topic)
			.commitInterval(Duration.ofMillis(100)).shutdownTimeout(Duration.ofSeconds(10)).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), held,
				transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(60))
				.until(() -> container.stats().flowControlCount() + container.stats().flowControlSpan() > 0);
			// Nothing finished: the backlog is one run of offsets, at most the count threshold and one poll.
			assertThat(container.stats().backlog())
				.isLessThanOrEqualTo(options.pullThresholdForQueue() + options.pullBatchSize());
			assertThat(container.stats().flowControlSpan()).isZero();
			assertThat(container.stats().flowControlCount()).isPositive();
			release.countDown();
			await().atMost(Duration.ofSeconds(60)).until(() -> processed.distinct() == 10_000);
		}
		finally {
			release.countDown();
			assertThat(container.stop()).isTrue();
		}
		assertThat(processed.duplicates()).isZero();
	}

	@Test
	void theContainerThresholdStopsEveryPartitionAtItsShareAndLosesNothing() throws Exception {
		String topic = "container-held";
		int partitions = 4;
		ProcessedRecords processed = filled(topic, partitions, 5_000);
		CountDownLatch release = new CountDownLatch(1);
		SliceListener held = (slice) -> {
			release.await();
			return processed.onSlice(slice);
		};
		ContainerOptions options = transport.optionsBuilder("container-held").topics(topic).group("group-" + topic)
			.pullThresholdForContainer(2_000).commitInterval(Duration.ofMillis(100))
			.shutdownTimeout(Duration.ofSeconds(10)).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), held,
				transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> container.stats().partitions().size() == partitions
					&& container.stats().partitions().stream().allMatch(PartitionSnapshot::pausedByFlowControl));
			ContainerSnapshot stats = container.stats();
			// Kafka's own threshold (4000 a partition) stops none of them by count first: the container's does.
			assertThat(stats.partitions()).allSatisfy((partition) -> assertThat(partition.flowControlReason())
				.contains("container-count"));
			// Below the threshold plus each partition's share and one poll (500 and 2000).
			assertThat(stats.backlog()).isLessThan(options.pullThresholdForContainer()
					+ partitions * (options.pullThresholdForContainer() / partitions + options.pullBatchSize()));
			release.countDown();
			await().atMost(Duration.ofSeconds(60)).until(() -> processed.distinct() == partitions * 5_000);
		}
		finally {
			release.countDown();
			assertThat(container.stop()).isTrue();
		}
		assertThat(processed.duplicates()).isZero();
	}

	@Test
	void thePullSizeIsRefusedTheThreadSizeChanges() throws Exception {
		String topic = "tuning";
		ProcessedRecords processed = filled(topic, 2, 2_000);
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

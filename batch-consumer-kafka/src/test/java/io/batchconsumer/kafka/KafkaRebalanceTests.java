package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Containers joining and leaving a group, and broadcast mode, against an in-process broker.
 */
@Tag("integration")
class KafkaRebalanceTests {

	private static final SharedKafka broker = SharedKafka.instance();

	/** Counts into the shared record and into this container's total; each slice costs about 2 ms. */
	private static SliceListener working(ProcessedRecords all, AtomicLong mine) {
		return (slice) -> {
			TimeUnit.MILLISECONDS.sleep(2); // simulated work, not synchronisation
			for (Message<byte[]> message : slice) {
				all.record(message);
			}
			mine.addAndGet(slice.size());
			return BatchResult.success();
		};
	}

	private static ContainerOptions.Builder settings(ContainerOptions.Builder builder) {
		return builder.group("rebalancing").ordering(Ordering.KEY).threadSize(4).consumerBatchSize(10).pullBatchSize(200);
	}

	private static BatchContainer start(KafkaTransport transport, ContainerOptions options, SliceListener listener) {
		BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
				transport.deadLetterSink(options));
		container.start();
		return container;
	}

	@Test
	void aSecondContainerJoinsMidStreamAndTheFirstLeavesWithoutLosingARecord() throws Exception {
		String topic = "rebalance";
		int partitions = 6;
		int perPartition = 10_000;
		broker.createTopic(topic, partitions);
		broker.fill(topic, partitions, perPartition, (i) -> "payload-" + i);
		ProcessedRecords all = new ProcessedRecords(partitions, perPartition);
		AtomicLong byFirst = new AtomicLong();
		AtomicLong bySecond = new AtomicLong();
		ContainerOptions first = settings(KafkaTransportTests.options("first", topic))
			.build();
		ContainerOptions second = settings(KafkaTransportTests.options("second", topic)).build();
		// Frequent heartbeats so the first container hears of the join quickly.
		try (KafkaTransport transport = new KafkaTransport(
				KafkaTransportTests.with(broker.clientProperties(), "heartbeat.interval.ms", 200))) {
			BatchContainer a = start(transport, first, working(all, byFirst));
			BatchContainer b = null;
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> all.distinct() >= 6_000);
				b = start(transport, second, working(all, bySecond));
				BatchContainer joined = b;
				// Cooperative-sticky: the first keeps half of its partitions and hands over the others.
				await().atMost(Duration.ofSeconds(30)).until(() -> joined.stats().partitions().size() == 3
						&& a.stats().partitions().size() == 3 && bySecond.get() > 0);
				assertThat(all.distinct()).as("the join happened mid-stream").isLessThan((long) partitions * perPartition);
				assertThat(a.stop()).isTrue();
				await().atMost(Duration.ofSeconds(60)).until(() -> all.distinct() == (long) partitions * perPartition);
				Map<Integer, Long> ends = broker.endOffsets(topic, partitions);
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(broker.committed("rebalancing", topic)).isEqualTo(ends));
			}
			finally {
				a.stop();
				if (b != null) {
					assertThat(b.stop()).isTrue();
				}
			}
		}
		assertThat(byFirst.get()).isPositive();
		assertThat(bySecond.get()).isPositive();
		// Duplicates come only from work done past the last commit of a partition that moves. A revoke
		// drains the partition's slices and commits its watermark before the partition moves, so a
		// clean hand-over re-delivers nothing; buffered messages that are dropped were never
		// processed. What can repeat when a revoke commit fails is the partition's finished but
		// uncommitted work plus what was in flight: in flight is at most threadSize x
		// consumerBatchSize per container, and finished-uncommitted is one commit interval (100 ms)
		// of work, which here stays below the per-partition backlog limit (pull-threshold-for-queue).
		// Two hand-overs happen (the join and the leave).
		long bound = 2L * (first.pullThresholdForQueue() * partitions + first.threadSize() * first.consumerBatchSize());
		System.out.printf("rebalance test: %d duplicates (bound %d), first %d, second %d%n", all.duplicates(), bound,
				byFirst.get(), bySecond.get());
		assertThat(all.duplicates()).isLessThanOrEqualTo(bound);
	}

	@Test
	void inBroadcastModeEveryInstanceGetsEveryRecordAndKeepsItsOwnOffsets() throws Exception {
		String topic = "broadcast";
		int partitions = 3;
		int perPartition = 1_000;
		ContainerOptions options = KafkaTransportTests.options("fanout", topic)
			.group("fanout")
			.mode(ConsumptionMode.BROADCAST)
			.build();
		ProcessedRecords onA = new ProcessedRecords(partitions, perPartition);
		ProcessedRecords onB = new ProcessedRecords(partitions, perPartition);
		try (KafkaTransport instanceA = new KafkaTransport(
				KafkaTransportTests.with(broker.clientProperties(), KafkaTransport.INSTANCE_ID, "a"));
				KafkaTransport instanceB = new KafkaTransport(
						KafkaTransportTests.with(broker.clientProperties(), KafkaTransport.INSTANCE_ID, "b"))) {
			// Started before the topic exists: each finds its partitions once it is created.
			BatchContainer a = start(instanceA, options, onA);
			BatchContainer b = start(instanceB, options, onB);
			try {
				broker.createTopic(topic, partitions);
				broker.fill(topic, partitions, perPartition, (i) -> "payload-" + i);
				await().atMost(Duration.ofSeconds(30)).until(() -> onA.distinct() == partitions * perPartition
						&& onB.distinct() == partitions * perPartition);
				Map<Integer, Long> ends = broker.endOffsets(topic, partitions);
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					assertThat(broker.committed("fanout-a", topic)).isEqualTo(ends);
					assertThat(broker.committed("fanout-b", topic)).isEqualTo(ends);
				});
			}
			finally {
				assertThat(a.stop()).isTrue();
				assertThat(b.stop()).isTrue();
			}
		}
		assertThat(onA.duplicates()).isZero();
		assertThat(onB.duplicates()).isZero();
	}


	@Test
	void aPausedPartitionThatTheContainerKeepsStaysPausedThroughARebalance() throws Exception {
		String topic = "paused";
		broker.createTopic(topic, 4);
		ProcessedRecords all = new ProcessedRecords(4, 200);
		ContainerOptions first = KafkaTransportTests.options("keeper", topic).group("pausing").build();
		ContainerOptions second = KafkaTransportTests.options("joiner", topic).group("pausing").build();
		try (KafkaTransport transport = new KafkaTransport(
				KafkaTransportTests.with(broker.clientProperties(), "heartbeat.interval.ms", 200))) {
			BatchContainer a = start(transport, first, all);
			BatchContainer b = null;
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> a.stats().partitions().size() == 4);
				for (PartitionSnapshot partition : a.stats().partitions()) {
					a.pause(partition.partition()).get(10, TimeUnit.SECONDS);
				}
				b = start(transport, second, all);
				BatchContainer joined = b;
				await().atMost(Duration.ofSeconds(30)).until(() -> joined.stats().partitions().size() == 2
						&& a.stats().partitions().size() == 2);
				broker.fill(topic, 4, 100, (i) -> "payload-" + i);
				List<Integer> kept = a.stats().partitions().stream().map((p) -> p.partition().partition()).toList();
				List<Integer> given = joined.stats().partitions().stream().map((p) -> p.partition().partition()).toList();
				await().atMost(Duration.ofSeconds(30)).until(() -> given.stream().allMatch((p) -> all.distinct(p) == 100));
				// Kept partitions are still paused at the consumer: nothing of them is even fetched.
				await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> a.stats()
					.partitions()
					.stream()
					.allMatch((p) -> p.pausedByUser() && p.fetchedOffset() == -1 && p.buffered() == 0));
				for (PartitionSnapshot partition : a.stats().partitions()) {
					a.resume(partition.partition()).get(10, TimeUnit.SECONDS);
				}
				await().atMost(Duration.ofSeconds(30)).until(() -> kept.stream().allMatch((p) -> all.distinct(p) == 100));
			}
			finally {
				assertThat(a.stop()).isTrue();
				if (b != null) {
					assertThat(b.stop()).isTrue();
				}
			}
		}
	}

}

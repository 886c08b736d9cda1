package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.testsupport.SharedKafka;

import static org.awaitility.Awaitility.await;

/**
 * Not a test (its name keeps it out of surefire and failsafe): measures how long a rebalance takes
 * under churn with each group protocol, on the in-process broker, while the containers work
 * through a backlog (1 ms a slice). One container owns a 12-partition topic; per round a second
 * joins (timed until both own 6 partitions) and leaves (timed until the first owns 12 again,
 * revoke-and-drain included). Both protocols heartbeat every 200 ms (the classic one by
 * {@code heartbeat.interval.ms}, the consumer one by the broker's
 * {@code group.consumer.heartbeat.interval.ms}, which the test broker sets). Run with:
 *
 * <pre>
 * mvn -o -q -pl batch-consumer-kafka -am test -Dtest=KafkaChurnProbe -DexcludedGroups= -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * and read {@code target/surefire-reports/io.batchconsumer.kafka.KafkaChurnProbe-output.txt}.
 */
class KafkaChurnProbe {

	private static final int PARTITIONS = 12;

	private static final int ROUNDS = Integer.getInteger("probe.rounds", 5);

	private final SharedKafka broker = SharedKafka.instance();

	@Test
	void rebalanceTimesUnderChurnWithBothGroupProtocols() throws Exception {
		for (String protocol : List.of("classic", "consumer", "classic", "consumer")) {
			measure(protocol);
		}
	}

	private void measure(String protocol) throws Exception {
		String topic = "churn-" + protocol + "-" + System.nanoTime();
		this.broker.createTopic(topic, PARTITIONS);
		this.broker.fill(topic, PARTITIONS, 20_000, (i) -> "payload-" + i);
		Map<String, Object> properties = this.broker.clientProperties();
		properties.put("group.protocol", protocol);
		if (protocol.equals("classic")) {
			properties.put("heartbeat.interval.ms", 200);
		}
		List<Long> joins = new ArrayList<>();
		List<Long> leaves = new ArrayList<>();
		try (KafkaTransport transport = new KafkaTransport(properties)) {
			BatchContainer first = start(transport, options("first", topic));
			try {
				await().atMost(Duration.ofSeconds(60)).until(() -> first.stats().partitions().size() == PARTITIONS);
				for (int round = 0; round < ROUNDS; round++) {
					long joinStart = System.nanoTime();
					BatchContainer second = start(transport, options("second-" + round, topic));
					await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(
							() -> second.stats().partitions().size() == PARTITIONS / 2
									&& first.stats().partitions().size() == PARTITIONS / 2);
					joins.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joinStart));
					long leaveStart = System.nanoTime();
					second.stop();
					await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
						.until(() -> first.stats().partitions().size() == PARTITIONS);
					leaves.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - leaveStart));
				}
			}
			finally {
				first.stop();
			}
		}
		System.out.printf("churn %-8s join ms %s (median %d), leave ms %s (median %d)%n", protocol, joins, median(joins),
				leaves, median(leaves));
	}

	/**
	 * One partition of 20,000 records, I/O-bound work (0–5 ms a record, slept), 16 threads a
	 * container: a share group with 1 and 3 containers against a key-ordered consumer group with 1
	 * and 3 (where only one of the three owns the partition).
	 */
	@Test
	void onePartitionOfIoBoundWorkOnShareGroupsAndConsumerGroups() throws Exception {
		for (int round = 0; round < 2; round++) {
			for (boolean share : List.of(true, false)) {
				for (int instances : List.of(1, 3)) {
					onePartition(share, instances, Duration.ofMillis(100));
				}
			}
		}
		onePartition(true, 3, Duration.ofSeconds(1));
	}

	private void onePartition(boolean share, int instances, Duration commitInterval) throws Exception {
		int records = 20_000;
		String topic = "one-" + (share ? "share" : "group") + "-" + instances + "-" + System.nanoTime();
		this.broker.createTopic(topic, 1);
		if (share) {
			try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin
				.create(this.broker.clientProperties())) {
				admin.incrementalAlterConfigs(Map.of(
						new org.apache.kafka.common.config.ConfigResource(
								org.apache.kafka.common.config.ConfigResource.Type.GROUP, topic),
						List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
								new org.apache.kafka.clients.admin.ConfigEntry("share.auto.offset.reset", "earliest"),
								org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET))))
					.all()
					.get(30, TimeUnit.SECONDS);
			}
		}
		this.broker.fill(topic, 1, records, (i) -> "payload-" + i);
		java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
		java.util.concurrent.atomic.AtomicLong first = new java.util.concurrent.atomic.AtomicLong();
		List<BatchContainer> containers = new ArrayList<>();
		try (KafkaTransport transport = new KafkaTransport(this.broker.clientProperties()).shareGroups((id) -> share)) {
			for (int i = 0; i < instances; i++) {
				ContainerOptions options = ContainerOptions.builder("one-" + i).topics(topic).group(topic)
					.ordering(share ? Ordering.UNORDERED : Ordering.KEY).threadSize(16).consumerBatchSize(10)
					.commitInterval(commitInterval).pollTimeout(Duration.ofMillis(100)).build();
				BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
					first.compareAndSet(0, System.nanoTime());
					for (int m = 0; m < slice.size(); m++) {
						TimeUnit.MICROSECONDS.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(5_001));
					}
					done.addAndGet(slice.size());
					return BatchResult.success();
				}, transport.deadLetterSink(options));
				container.start();
				containers.add(container);
			}
			await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(10)).until(() -> done.get() >= records);
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - first.get());
			System.out.printf("one partition, %s, %d instance(s), commit interval %d ms: %d records in %d ms from the first, %.0f records/s%n",
					share ? "share group" : "consumer group (key order)", instances, commitInterval.toMillis(), done.get(),
					millis, done.get() * 1000.0 / millis);
		}
		finally {
			containers.forEach(BatchContainer::stop);
		}
	}

	private static ContainerOptions options(String id, String topic) {
		return ContainerOptions.builder(id).topics(topic).group(topic).ordering(Ordering.UNORDERED).threadSize(4)
			.consumerBatchSize(10).pullBatchSize(200).commitInterval(Duration.ofMillis(100))
			.pollTimeout(Duration.ofMillis(100)).shutdownTimeout(Duration.ofSeconds(10)).build();
	}

	private static BatchContainer start(KafkaTransport transport, ContainerOptions options) {
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			TimeUnit.MILLISECONDS.sleep(1); // simulated work, not synchronisation
			return BatchResult.success();
		}, transport.deadLetterSink(options));
		container.start();
		return container;
	}

	private static long median(List<Long> values) {
		List<Long> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		return sorted.get(sorted.size() / 2);
	}

}

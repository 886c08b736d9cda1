package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;

import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rebalance churn: three containers of one group ({@link KafkaTransport}, cooperative-sticky) on
 * an in-process broker leave and join again at random moments while they consume a topic of six
 * partitions, so partitions keep moving between them, often with work in flight.
 *
 * <p>What it checks: every record is processed (nothing lost); every partition is committed to its
 * end (none stuck); and <b>no commit ever passes an unfinished record</b> — a consumer interceptor
 * sees every commit the brokers acknowledge, of every container, and checks that each record
 * below the committed offset had finished in the listener by then. Duplicates are counted: a clean
 * hand-over drains the revoked partitions and commits them inside the revoke callback, so they
 * come only from a hand-over whose commit failed (the group had already moved on); each such
 * hand-over repeats at most the partition's uncommitted window — per partition at most
 * {@code pull-threshold-for-queue + pull-batch-size} fetched and not committed, plus the slices in
 * flight ({@code thread-size × consumer-batch-size}) — which bounds the total by
 * {@link #bound(int)}.
 *
 * <p>Both group protocols: the classic one, and the consumer protocol (KIP-848,
 * {@code group.protocol=consumer}) on a topic and group of its own, where the broker assigns the
 * partitions (the client's assignor and heartbeat settings do not apply; the test broker
 * heartbeats every 200 ms).
 *
 * <p>Default run: classic 60,000 records (consumption is slowed to about 2,000 records a second per
 * container so that the churn meets work in flight; 100,000 takes too long next to the rest of the
 * suite on two cores), consumer protocol 6,000 (a few joins and leaves); soak run
 * ({@code -Dbatch-consumer.soak=true}): 300,000 each.
 */
@Tag("integration")
class KafkaRebalanceChurnTests {

	private static final int PARTITIONS = 6;

	private static final int CONTAINERS = 3;

	/** Client property that hands the checker to the interceptor ({@link CommitChecker#configure}). */
	private static final String CHECKER = "churn.checker";

	@Test
	void containersJoiningAndLeavingLoseNothingAndNeverCommitPastAnUnfinishedRecord() throws Exception {
		run(new Row("classic", "churn", Soak.pick(60_000, 300_000)));
	}

	@Test
	void onTheConsumerGroupProtocolContainersJoiningAndLeavingLoseNothingAndNeverCommitPastAnUnfinishedRecord()
			throws Exception {
		run(new Row("consumer", "churn-kip848", Soak.pick(6_000, 300_000)));
	}

	/**
	 * One churn run.
	 * @param protocol the group protocol
	 * @param topic the topic, also the group
	 * @param total the records
	 */
	private record Row(String protocol, String topic, int total) {
	}

	private void run(Row row) throws Exception {
		long seed = Soak.seed("KafkaRebalanceChurnTests " + row.protocol());
		Random random = new Random(seed);
		int perPartition = row.total() / PARTITIONS;
		Records records = new Records(PARTITIONS, perPartition);
		int churns = 0;
		int generation = 0;
		SharedKafka broker = SharedKafka.instance();
		broker.createTopic(row.topic(), PARTITIONS);
		broker.fill(row.topic(), PARTITIONS, perPartition, (i) -> "key-" + (i % 64), Integer::toString);
		long started = System.nanoTime();
		Map<String, Object> client = new HashMap<>();
		client.put("bootstrap.servers", broker.bootstrap());
		client.put("group.protocol", row.protocol());
		if (row.protocol().equals("classic")) {
			client.put("heartbeat.interval.ms", 300);
		}
		client.put("interceptor.classes", CommitChecker.class.getName());
		client.put(CHECKER, records);
		BatchContainer[] running = new BatchContainer[CONTAINERS];
		try (KafkaTransport transport = new KafkaTransport(client)) {
			for (int slot = 0; slot < CONTAINERS; slot++) {
				running[slot] = start(transport, row.topic(), slot, 0, records);
			}
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(Soak.pick(3, 15));
			while (records.distinct() < (long) PARTITIONS * perPartition && System.nanoTime() < deadline) {
				Thread.sleep(300 + random.nextInt(1200)); // chaos pacing
				int slot = random.nextInt(CONTAINERS);
				long others = IntStream.range(0, CONTAINERS)
					.filter((other) -> other != slot && running[other] != null)
					.count();
				if (running[slot] != null && others > 0) {
					assertThat(running[slot].stop()).as("seed %d: container %d stopped in time", seed, slot).isTrue();
					running[slot] = null;
					churns++;
				}
				else if (running[slot] == null) {
					running[slot] = start(transport, row.topic(), slot, ++generation, records);
					churns++;
				}
			}
			await().atMost(Duration.ofMinutes(2))
				.until(() -> records.distinct() == (long) PARTITIONS * perPartition);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(broker.uncommitted(row.topic(), row.topic(), PARTITIONS)).as("seed %d", seed)
					.isEmpty());
		}
		finally {
			for (BatchContainer container : running) {
				if (container != null) {
					container.stop();
				}
			}
		}
		System.out.printf("KafkaRebalanceChurnTests (%s): %d records, %d joins and leaves, %d commits checked, lost %d,"
				+ " commits past an unfinished record %d, duplicates %d (bound %d), %d s%n", row.protocol(),
				PARTITIONS * perPartition, churns, records.commitsChecked(),
				(long) PARTITIONS * perPartition - records.distinct(), records.violations.size(), records.duplicates(),
				bound(churns), Duration.ofNanos(System.nanoTime() - started).toSeconds());
		assertThat(records.violations).as("commits past an unfinished record (seed %d)", seed).isEmpty();
		assertThat(records.commitsChecked()).isPositive();
		assertThat(records.duplicates()).as("seed %d", seed).isLessThanOrEqualTo(bound(churns));
	}

	/**
	 * The most records that {@code churns} joins and leaves may deliver twice (see the class comment):
	 * each may repeat one container's uncommitted window.
	 */
	private static long bound(int churns) {
		ContainerOptions options = options("bound", "churn");
		return (long) churns * (PARTITIONS * (options.pullThresholdForQueue() + options.pullBatchSize())
				+ options.threadSize() * options.consumerBatchSize());
	}

	private static ContainerOptions options(String id, String topic) {
		return ContainerOptions.builder(id)
			.topics(topic)
			.group(topic)
			.ordering(Ordering.KEY)
			.threadSize(2)
			.consumerBatchSize(10)
			.pullBatchSize(100)
			.pullThresholdForQueue(300)
			.maxSpan(600)
			.commitInterval(Duration.ofMillis(100))
			.shutdownTimeout(Duration.ofSeconds(10))
			.pollTimeout(Duration.ofMillis(100))
			.build();
	}

	private static BatchContainer start(KafkaTransport transport, String topic, int slot, int generation,
			Records records) {
		ContainerOptions options = options(topic + "-" + slot + "-" + generation, topic);
		BatchContainer container = new BatchContainer(options, transport.createSource(options), records,
				transport.deadLetterSink(options));
		container.start();
		return container;
	}

	/**
	 * How often each record was processed, from every worker of every container; and the commits
	 * that passed a record that had not been processed.
	 *
	 * <p>Threading: counts are atomic; workers write them, the interceptor (on the containers' owner
	 * threads) reads them. Each partition's checked-up-to mark is guarded by the partition's lock.
	 */
	static final class Records implements SliceListener {

		private final AtomicIntegerArray[] counts;

		private final long[] checkedUpTo;

		private long commitsChecked;

		final Queue<String> violations = new ConcurrentLinkedQueue<>();

		Records(int partitions, int perPartition) {
			this.counts = new AtomicIntegerArray[partitions];
			this.checkedUpTo = new long[partitions];
			for (int p = 0; p < partitions; p++) {
				this.counts[p] = new AtomicIntegerArray(perPartition);
			}
		}

		@Override
		public BatchResult onSlice(List<Message<byte[]>> slice) throws InterruptedException {
			TimeUnit.MILLISECONDS.sleep(10); // simulated work, not synchronisation
			for (Message<byte[]> message : slice) {
				this.counts[message.partition()].incrementAndGet((int) message.offset());
			}
			return BatchResult.success();
		}

		/** Checks an acknowledged commit: every record below each committed offset was processed. */
		synchronized void checkCommit(Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets) {
			this.commitsChecked++;
			offsets.forEach((partition, offset) -> {
				int p = partition.partition();
				for (long o = this.checkedUpTo[p]; o < offset.offset(); o++) {
					if (this.counts[p].get((int) o) == 0) {
						this.violations.add(partition + " committed at " + offset.offset() + " before offset " + o
								+ " finished");
						break;
					}
				}
				this.checkedUpTo[p] = Math.max(this.checkedUpTo[p], offset.offset());
			});
		}

		synchronized long commitsChecked() {
			return this.commitsChecked;
		}

		long distinct() {
			long distinct = 0;
			for (AtomicIntegerArray partition : this.counts) {
				for (int i = 0; i < partition.length(); i++) {
					distinct += (partition.get(i) > 0) ? 1 : 0;
				}
			}
			return distinct;
		}

		long duplicates() {
			long duplicates = 0;
			for (AtomicIntegerArray partition : this.counts) {
				for (int i = 0; i < partition.length(); i++) {
					duplicates += Math.max(0, partition.get(i) - 1);
				}
			}
			return duplicates;
		}

	}

	/**
	 * A consumer interceptor that hands every acknowledged commit to the {@link Records} given in the
	 * client properties. Kafka creates it per consumer; {@code onCommit} runs on the thread that
	 * polls or commits, the container's owner thread.
	 */
	public static final class CommitChecker implements ConsumerInterceptor<String, byte[]> {

		private Records records;

		@Override
		public void configure(Map<String, ?> configs) {
			this.records = (Records) configs.get(CHECKER);
		}

		@Override
		public ConsumerRecords<String, byte[]> onConsume(ConsumerRecords<String, byte[]> records) {
			return records;
		}

		@Override
		public void onCommit(Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets) {
			this.records.checkCommit(offsets);
		}

		@Override
		public void close() {
		}

	}

}

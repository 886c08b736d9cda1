package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.testsupport.InProcessKafkaBroker;

/**
 * Not a test (surefire does not run it): measures records/s of a container with a no-op listener
 * against a plain {@code KafkaConsumer} poll loop, on one in-process broker in one JVM run.
 *
 * <p>1M records of 100 bytes over 6 partitions (system properties {@code probe.records},
 * {@code probe.rounds}); the container runs unordered with 4 threads, slices of 500, pulls of 2000
 * and a commit interval of 1 s, every other option at its default. After one warm-up read of each,
 * every round reads the whole topic with a fresh group, plain loop first, then the container; the
 * report gives every round and the median, from the first record to the last (steady state) and
 * from the start (group join included), and the longest gap between two slices. The plain loop
 * only counts records and does not commit until the end: it is the ceiling. The container's
 * consumer runs with the transport's defaults; {@code -Dprobe.fetchMaxWait=500} puts back Kafka's
 * default long-poll wait. Run with:
 *
 * <pre>
 * mvn -q -pl batch-consumer-core test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp batch-consumer-core/target/test-classes:batch-consumer-core/target/classes:$(cat batch-consumer-core/target/cp.txt) \
 *     io.batchconsumer.kafka.KafkaThroughputProbe
 * </pre>
 */
public final class KafkaThroughputProbe {

	private static final String TOPIC = "probe";

	private static final int PARTITIONS = 6;

	private KafkaThroughputProbe() {
	}

	public static void main(String[] args) throws Exception {
		int records = Integer.getInteger("probe.records", 1_000_000);
		int rounds = Integer.getInteger("probe.rounds", 3);
		InProcessKafkaBroker broker = new InProcessKafkaBroker(1, PARTITIONS, TOPIC);
		broker.afterPropertiesSet();
		Map<String, Object> properties = new HashMap<>(Map.of("bootstrap.servers", broker.getBrokersAsString()));
		if (System.getProperty("probe.fetchMaxWait") != null) {
			properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.getInteger("probe.fetchMaxWait"));
		}
		try (KafkaTransport transport = new KafkaTransport(properties)) {
			fill(broker.getBrokersAsString(), records);
			plainLoop(broker.getBrokersAsString(), records, "plain-warm-up");
			container(transport, records, "ours-warm-up");
			List<Rate> plain = new ArrayList<>();
			List<Rate> ours = new ArrayList<>();
			for (int round = 1; round <= rounds; round++) {
				plain.add(plainLoop(broker.getBrokersAsString(), records, "plain-" + round));
				ours.add(container(transport, records, "ours-" + round));
				System.out.printf("round %d: plain KafkaConsumer %s; batch-consumer %s%n", round, plain.get(round - 1),
						ours.get(round - 1));
			}
			System.out.printf("median of %d, first to last record: plain KafkaConsumer %,.0f records/s, "
					+ "batch-consumer %,.0f records/s (%.2fx)%n", rounds, median(plain, true), median(ours, true),
					median(ours, true) / median(plain, true));
			System.out.printf("median of %d, start to last record (group join included): plain %,.0f records/s, "
					+ "batch-consumer %,.0f records/s%n", rounds, median(plain, false), median(ours, false));
		}
		finally {
			broker.destroy();
		}
	}

	private static void fill(String bootstrap, int records) {
		Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, ProducerConfig.LINGER_MS_CONFIG, 10,
				ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024, ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
		byte[] value = new byte[100];
		long start = System.nanoTime();
		try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(),
				new ByteArraySerializer())) {
			for (int i = 0; i < records; i++) {
				producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value));
			}
			producer.flush();
		}
		System.out.printf("filled %,d records of 100 B in %d ms%n", records,
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
	}

	private static Rate plainLoop(String bootstrap, int records, String group) {
		Map<String, Object> config = new HashMap<>();
		config.put("bootstrap.servers", bootstrap);
		config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
		try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
				new ByteArrayDeserializer())) {
			long start = System.nanoTime();
			long first = 0;
			long seen = 0;
			consumer.subscribe(List.of(TOPIC));
			while (seen < records) {
				int count = consumer.poll(Duration.ofMillis(100)).count();
				if (count > 0 && first == 0) {
					first = System.nanoTime();
				}
				seen += count;
			}
			Rate rate = new Rate(records, start, first, System.nanoTime());
			consumer.commitSync();
			return rate;
		}
	}

	private static Rate container(KafkaTransport transport, int records, String group) throws Exception {
		ContainerOptions options = ContainerOptions.builder(group)
			.topics(TOPIC)
			.group(group)
			.ordering(Ordering.UNORDERED)
			.threadSize(4)
			.consumerBatchSize(500)
			.pullBatchSize(2000)
			.commitInterval(Duration.ofSeconds(1))
			.build();
		LongAdder processed = new LongAdder();
		AtomicLong first = new AtomicLong();
		CountDownLatch done = new CountDownLatch(1);
		AtomicLong end = new AtomicLong();
		AtomicLong last = new AtomicLong();
		AtomicLong longestGap = new AtomicLong();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			long now = System.nanoTime();
			first.compareAndSet(0, now);
			long previous = last.getAndSet(now);
			if (previous != 0) {
				longestGap.accumulateAndGet(now - previous, Math::max);
			}
			processed.add(slice.size());
			if (processed.sum() >= records && end.compareAndSet(0, System.nanoTime())) {
				done.countDown();
			}
			return BatchResult.success();
		}, transport.deadLetterSink(options));
		long start = System.nanoTime();
		container.start();
		done.await(10, TimeUnit.MINUTES);
		Rate rate = new Rate(records, start, first.get(), end.get());
		ContainerSnapshot stats = container.stats();
		System.out.printf("  container %s: flow-control stops count %d, size %d, span %d; %d commits; "
				+ "longest gap between slices %d ms%n", group, stats.flowControlCount(), stats.flowControlSize(),
				stats.flowControlSpan(), stats.commitsSucceeded(), TimeUnit.NANOSECONDS.toMillis(longestGap.get()));
		container.stop();
		return rate;
	}

	private static double median(List<Rate> rates, boolean steady) {
		List<Double> sorted = new ArrayList<>();
		for (Rate rate : rates) {
			sorted.add(steady ? rate.steady() : rate.total());
		}
		sorted.sort(Double::compare);
		return sorted.get(sorted.size() / 2);
	}

	/** One read of the whole topic: from start (group join included) and from the first record. */
	private record Rate(int records, long startNanos, long firstNanos, long endNanos) {

		double total() {
			return this.records / ((this.endNanos - this.startNanos) / 1e9);
		}

		double steady() {
			return this.records / ((this.endNanos - this.firstNanos) / 1e9);
		}

		@Override
		public String toString() {
			return String.format("%,.0f records/s from the first record (%,.0f with the group join)", steady(), total());
		}

	}

}

package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Scenarios;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.ThreadCpu;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.kafka.KafkaTransport;

/**
 * Share groups side by side on one partition with I/O-bound work (every record sleeps uniformly
 * 0–5 ms, 16 threads an instance), 1 and 3 instances in this JVM on an in-process broker: ours on a
 * share group ({@code kafka.share-group}, slices of one record; {@code commit.interval} 1 s and
 * 100 ms, the default: the commit is the acknowledgement, and a share consumer polls again only once
 * its last poll's records are acknowledged), ours key-ordered on a consumer group (one partition:
 * one instance works, the others stand by), and Spring for Apache Kafka's
 * {@link ShareKafkaMessageListenerContainer} with a record listener and concurrency 16 (16 share
 * consumers an instance, implicit acknowledgement), at its defaults ({@code max.poll.records} 500)
 * and with one record a poll ({@code -r1}: {@code max.poll.records=1},
 * {@code share.acquire.mode=record_limit}). Every run reads
 * the whole topic with a fresh group that starts at the earliest record; the configurations take
 * turns, the first rotating each round, and the median of the rounds is kept.
 *
 * Each run also prints the process's CPU (broker, clients and listeners: microseconds a record and
 * cores kept busy) and how busy the whole machine was, which tells a machine at its limit from a
 * consumer that waits.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests package
 * java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.kafka.ShareGroupBench [records] [rounds] [kinds]
 * </pre>
 * {@code kinds} (comma-separated, default all): {@code ours-share}, {@code ours-share-c100},
 * {@code spring-share}, {@code spring-share-r1}, {@code ours-key}.
 *
 * <p>Threading: runs on the main thread; each instance owns its threads.
 */
public final class ShareGroupBench {

	private static final int THREADS = 16;

	private static final List<String> KINDS = List.of("ours-share", "ours-share-c100", "spring-share",
			"spring-share-r1", "ours-key");

	private ShareGroupBench() {
	}

	/**
	 * Runs every configuration and prints a table with the ratios.
	 * @param args records (default 20,000) and rounds (default 3)
	 * @throws Exception when the broker or a run fails
	 */
	public static void main(String[] args) throws Exception {
		int records = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		List<String> kinds = (args.length > 2) ? List.of(args[2].split(",")) : KINDS;
		Scenario scenario = scenario(records);
		Map<String, List<Double>> results = new LinkedHashMap<>();
		try (BenchBroker broker = new BenchBroker();
				Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrap()))) {
			broker.fill(scenario);
			KafkaTransport transport = new KafkaTransport(Map.of("bootstrap.servers", broker.bootstrap()))
				.shareGroups((id) -> id.startsWith("ours-share"))
				.shareAutoOffsetReset((id) -> id.startsWith("ours-share") ? "earliest" : null);
			try {
				List<Configuration> configurations = new ArrayList<>();
				for (int instances : new int[] { 1, 3 }) {
					for (String kind : KINDS) {
						if (kinds.contains(kind)) {
							configurations.add(new Configuration(kind, instances));
						}
					}
				}
				for (int round = 0; round <= rounds; round++) {
					for (int i = 0; i < configurations.size(); i++) {
						Configuration configuration = configurations.get((i + round) % configurations.size());
						double throughput = run(configuration, scenario, transport, admin, broker.bootstrap(), round);
						if (round > 0) { // round 0 warms up
							results.computeIfAbsent(configuration.label(), (key) -> new ArrayList<>()).add(throughput);
						}
					}
				}
			}
			finally {
				transport.close();
			}
		}
		print(results, records, rounds);
	}

	private static Scenario scenario(int records) {
		Scenario base = new Scenarios(false, records / 10_000.0).ioBound();
		return new Scenario(base.number(), base.name(), "share-io-" + records, 1, records, base.payloadBytes(),
				base.keys(), THREADS, 1, base.pollRecords(), base.work());
	}

	/** One way of consuming with a number of instances. */
	private record Configuration(String kind, int instances) {

		String label() {
			return this.kind + " x" + this.instances;
		}

	}

	private static double run(Configuration configuration, Scenario scenario, KafkaTransport transport, Admin admin,
			String bootstrap, int round) throws Exception {
		String group = configuration.kind() + "-" + configuration.instances() + "-r" + round;
		Tally tally = new Tally(scenario.records(), 1);
		List<AutoCloseable> instances = new ArrayList<>();
		if (configuration.kind().startsWith("spring-share")) {
			startAtTheEarliest(admin, group);
		}
		long startNanos = System.nanoTime();
		long cpuBefore = ThreadCpu.processNanos();
		long[] machineBefore = MachineCpu.read();
		try {
			for (int n = 0; n < configuration.instances(); n++) {
				instances.add(switch (configuration.kind()) {
					case "ours-share" -> ours(transport, scenario, group, group + "-" + n, Ordering.UNORDERED,
							Duration.ofSeconds(1), tally);
					case "ours-share-c100" -> ours(transport, scenario, group, group + "-" + n, Ordering.UNORDERED,
							Duration.ofMillis(100), tally);
					case "ours-key" -> ours(transport, scenario, group, group + "-" + n, Ordering.KEY,
							Duration.ofSeconds(1), tally);
					case "spring-share" -> spring(bootstrap, scenario, group, group + "-" + n, false, tally);
					default -> spring(bootstrap, scenario, group, group + "-" + n, true, tally);
				});
			}
			if (!tally.await(Duration.ofMinutes(5))) {
				throw new IllegalStateException(group + " did not finish: " + tally.distinct() + " of " + scenario.records());
			}
			long wall = System.nanoTime() - startNanos;
			System.out.printf("%s: from start to the last record %s; machine %s%n", group,
					ThreadCpu.process(ThreadCpu.processNanos() - cpuBefore, wall, scenario.records()),
					MachineCpu.busy(machineBefore, MachineCpu.read()));
		}
		finally {
			for (AutoCloseable instance : instances) {
				instance.close();
			}
		}
		double seconds = (tally.lastNanos() - tally.firstNanos()) / 1e9;
		double throughput = scenario.records() / seconds;
		System.out.printf("%s: %,.0f records/s (%.2f s, %,d duplicates)%n", group, throughput, seconds,
				tally.duplicates());
		return throughput;
	}

	private static AutoCloseable ours(KafkaTransport transport, Scenario scenario, String group, String id,
			Ordering ordering, Duration commitInterval, Tally tally) {
		ContainerOptions options = BatchConsumerContender.options(scenario, id, group, ordering, commitInterval);
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			for (Message<byte[]> message : slice) {
				long index = Records.index(message.payload());
				scenario.work().perform(index);
				tally.processed(index);
			}
			return BatchResult.success();
		}, transport.deadLetterSink(options));
		container.start();
		return container::stop;
	}

	private static AutoCloseable spring(String bootstrap, Scenario scenario, String group, String id,
			boolean oneRecordAPoll, Tally tally) {
		Map<String, Object> config = new HashMap<>();
		config.put("bootstrap.servers", bootstrap);
		if (oneRecordAPoll) {
			// Each share consumer acquires one record at a time, so that one does not lock a batch
			// the other fifteen could work on.
			config.put("max.poll.records", 1);
			config.put("share.acquire.mode", "record_limit");
		}
		DefaultShareConsumerFactory<String, byte[]> factory = new DefaultShareConsumerFactory<>(config,
				new StringDeserializer(), new ByteArrayDeserializer(), false);
		ContainerProperties properties = new ContainerProperties(scenario.topic());
		properties.setGroupId(group);
		properties.setMessageListener((MessageListener<String, byte[]>) (record) -> {
			long index = Records.index(record.value());
			scenario.work().perform(index);
			tally.processed(index);
		});
		ShareKafkaMessageListenerContainer<String, byte[]> container = new ShareKafkaMessageListenerContainer<>(factory,
				properties);
		container.setConcurrency(scenario.threads());
		container.setBeanName(id);
		container.start();
		return container::stop;
	}

	/** A share group starts at the latest record unless told otherwise; ours sets it itself. */
	private static void startAtTheEarliest(Admin admin, String group) throws Exception {
		admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
				List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
						AlterConfigOp.OpType.SET))))
			.all()
			.get(30, TimeUnit.SECONDS);
	}

	private static void print(Map<String, List<Double>> results, int records, int rounds) {
		Map<String, Double> median = new LinkedHashMap<>();
		results.forEach((label, values) -> {
			double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
			median.put(label, sorted[sorted.length / 2]);
		});
		System.out.printf("%nJava %s, %,d records, 1 partition, sleep 0-5 ms, %d threads an instance, median of %d rounds%n",
				Runtime.version(), records, THREADS, rounds);
		System.out.println("| configuration | records/s | rounds |");
		System.out.println("|---|---|---|");
		median.forEach((label, value) -> System.out.printf("| %s | %,.0f | %s |%n", label, value,
				Arrays.toString(results.get(label).stream().mapToLong(Math::round).toArray())));
		if (!median.keySet().containsAll(List.of("ours-share x1", "ours-share-c100 x3", "spring-share x3",
				"spring-share-r1 x3", "ours-key x3"))) {
			median.forEach((label, value) -> System.out.printf("%s: %,.0f%n", label, value));
			return;
		}
		for (String ours : List.of("ours-share", "ours-share-c100")) {
			System.out.printf("%s: x3 / x1 %.2f; / spring-share x1 %.2f, x3 %.2f; / spring-share-r1 x1 %.2f, x3 %.2f; "
					+ "/ ours-key x1 %.2f, x3 %.2f%n", ours, median.get(ours + " x3") / median.get(ours + " x1"),
					median.get(ours + " x1") / median.get("spring-share x1"),
					median.get(ours + " x3") / median.get("spring-share x3"),
					median.get(ours + " x1") / median.get("spring-share-r1 x1"),
					median.get(ours + " x3") / median.get("spring-share-r1 x3"),
					median.get(ours + " x1") / median.get("ours-key x1"), median.get(ours + " x3") / median.get("ours-key x3"));
		}
	}

}

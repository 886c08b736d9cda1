package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Scenarios;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.WorkerThreads;
import io.batchconsumer.kafka.KafkaTransport;

/**
 * Platform versus virtual worker threads in the I/O-bound scenario (one partition, every record
 * sleeps uniformly 0–5 ms, slices of one record) at thread-size 16, 256 and 1024, in one run on an
 * in-process broker. Each thread-size gets at least 400 records per thread (so a run lasts long
 * enough to measure), and flow control is widened with the thread-size (count 4×, span 8×) so it
 * does not cap the concurrency being measured. Needs Java 21 or later:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -cp benchmarks/target/benchmarks.jar \
 *     io.batchconsumer.benchmarks.kafka.VirtualThreadsBench [records] [repeats]
 * </pre>
 *
 * <p>Threading: runs on the main thread; each run's container owns its threads.
 */
public final class VirtualThreadsBench {

	private static final int[] THREAD_SIZES = { 16, 256, 1024 };

	private VirtualThreadsBench() {
	}

	/**
	 * Runs every pair and prints a table with the ratios.
	 * @param args the least record count (default 40,000) and repeats per cell (default 3, the median is kept)
	 * @throws Exception when the broker or a run fails
	 */
	public static void main(String[] args) throws Exception {
		if (!WorkerThreads.isVirtualAvailable()) {
			throw new IllegalStateException("Run this on Java 21 or later (virtual threads), not " + Runtime.version());
		}
		int records = (args.length > 0) ? Integer.parseInt(args[0]) : 40_000;
		int repeats = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
		List<String> rows = new ArrayList<>();
		try (BenchBroker broker = new BenchBroker()) {
			KafkaTransport transport = new KafkaTransport(Map.of("bootstrap.servers", broker.bootstrap()));
			try {
				for (int threads : THREAD_SIZES) {
					Scenario scenario = scenario(Math.max(records, 400 * threads));
					broker.fill(scenario);
					double platform = median(transport, scenario, threads, WorkerThreads.PLATFORM, repeats);
					double virtual = median(transport, scenario, threads, WorkerThreads.VIRTUAL, repeats);
					double ideal = threads / 2.5e-3;
					rows.add(String.format("| %,d | %,d | %,.0f | %,.0f | %.2f× | %.2f / %.2f |", threads,
							scenario.records(), platform, virtual, virtual / platform, platform / ideal, virtual / ideal));
				}
			}
			finally {
				transport.close();
			}
		}
		System.out.printf("%nJava %s, 1 partition, sleep 0-5 ms, slices of 1, median of %d%n", Runtime.version(),
				repeats);
		System.out.println("| thread-size | records | platform rec/s | virtual rec/s | virtual / platform "
				+ "| of ideal (platform / virtual) |");
		System.out.println("|---|---|---|---|---|---|");
		rows.forEach(System.out::println);
	}

	private static Scenario scenario(int records) {
		Scenario base = new Scenarios(false, records / 10_000.0).ioBound();
		return new Scenario(base.number(), base.name(), "vt-io-" + records, 1, records, base.payloadBytes(), base.keys(),
				base.threads(), 1, base.pollRecords(), base.work());
	}

	private static double median(KafkaTransport transport, Scenario scenario, int threads, WorkerThreads kind,
			int repeats) throws Exception {
		double[] results = new double[repeats];
		for (int i = 0; i < repeats; i++) {
			results[i] = run(transport, scenario, threads, kind, "vt-" + kind.name().toLowerCase() + "-" + threads + "-" + i);
		}
		java.util.Arrays.sort(results);
		return results[repeats / 2];
	}

	private static double run(KafkaTransport transport, Scenario scenario, int threads, WorkerThreads kind, String group)
			throws Exception {
		ContainerOptions options = ContainerOptions.builder(group)
			.topics(scenario.topic())
			.group(group)
			.ordering(Ordering.UNORDERED)
			.threadSize(threads)
			.consumerBatchSize(1)
			.pullBatchSize(scenario.pollRecords())
			.pullThresholdForQueue(Math.max(1000, 4 * threads))
			.maxSpan(Math.max(2000, 8 * threads))
			.commitInterval(Duration.ofSeconds(1))
			.build();
		Tally tally = new Tally(scenario.records(), scenario.partitions());
		BatchContainer container = BatchContainer.builder(options, transport.createSource(options), (slice) -> {
			for (Message<byte[]> message : slice) {
				long index = Records.index(message.payload());
				scenario.work().perform(index);
				tally.processed(index);
			}
			return BatchResult.success();
		}, transport.deadLetterSink(options)).workerThreads(kind).build();
		container.start();
		try {
			if (!tally.await(Duration.ofMinutes(5))) {
				throw new IllegalStateException(group + " did not finish: " + tally.distinct() + " of " + scenario.records());
			}
		}
		finally {
			container.stop();
		}
		double seconds = (tally.lastNanos() - tally.firstNanos()) / 1e9;
		double throughput = scenario.records() / seconds;
		System.out.printf("%s: %,.0f records/s (%.2f s)%n", group, throughput, seconds);
		return throughput;
	}

}

package io.batchconsumer.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.batchconsumer.benchmarks.jdbc.ExactlyOnceBench;
import io.batchconsumer.benchmarks.jdbc.JdbcBench;
import io.batchconsumer.benchmarks.jdbc.JdbcEndToEndBench;
import io.batchconsumer.benchmarks.jmh.MicroBenchmarks;
import io.batchconsumer.benchmarks.kafka.KafkaBench;
import io.batchconsumer.benchmarks.rocketmq.RocketMqBench;
import io.batchconsumer.benchmarks.report.Medians;
import io.batchconsumer.benchmarks.report.ResultFiles;

/**
 * Runs the benchmark scenarios for every contender in one JVM and writes the table, the CSV and the
 * chart under {@code benchmarks/results/}. From the repository root:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests package &amp;&amp; java -jar benchmarks/target/benchmarks.jar [--quick] [--scenarios=1,2]
 * </pre>
 *
 * See {@link RunnerOptions} for every argument.
 */
public final class BenchmarkRunner {

	private final RunnerOptions options;

	private final List<RunResult> runs = new ArrayList<>();

	private final Map<Integer, String> names = new LinkedHashMap<>();

	private final Map<Integer, Double> ideal = new LinkedHashMap<>();

	private double loadMin = Double.MAX_VALUE;

	private double loadMax;

	/**
	 * A runner.
	 * @param options the options
	 */
	public BenchmarkRunner(RunnerOptions options) {
		this.options = options;
	}

	public static void main(String[] args) throws Exception {
		RunnerOptions options = RunnerOptions.parse(args);
		new BenchmarkRunner(options).run();
		System.exit(0);
	}

	/**
	 * Runs the chosen scenarios, prints the table and writes the result files.
	 * @return the median rows
	 * @throws Exception when a broker or database fails
	 */
	public List<RunResult> run() throws Exception {
		long start = System.nanoTime();
		sampleLoad();
		if (!this.options.jmhOnly()) {
			runKafka();
			runJdbc();
			runJdbcEndToEnd();
			runRocketMq();
			runExactlyOnce();
		}
		if (this.options.jmh()) {
			MicroBenchmarks.run(this.options);
		}
		if (this.runs.isEmpty()) {
			return List.of();
		}
		List<String> header = header((System.nanoTime() - start) / 1e9);
		ResultFiles.write(this.options.out(), header, this.runs, this.names, this.ideal);
		List<RunResult> rows = Medians.of(this.runs);
		System.out.println();
		System.out.println(ResultFiles.markdown(header, rows, this.names, this.ideal));
		System.out.println("written to " + this.options.out().toAbsolutePath());
		return rows;
	}

	private void runKafka() throws Exception {
		Scenarios sizes = this.options.sizes();
		List<Scenario> throughput = new ArrayList<>();
		for (Scenario scenario : List.of(sizes.zeroWork(), sizes.ioBound(), sizes.skew())) {
			if (this.options.scenarios().contains(scenario.number())) {
				throughput.add(scenario);
			}
		}
		boolean memory = this.options.scenarios().contains(5);
		if (throughput.isEmpty() && !memory) {
			return;
		}
		try (KafkaBench bench = new KafkaBench(this.options, this::progress)) {
			for (Scenario scenario : throughput) {
				describe(scenario);
				this.runs.addAll(bench.run(scenario));
			}
			if (memory) {
				Scenario scenario = sizes.memory(new Blocker());
				this.names.put(5, scenario.name());
				System.out.printf("%n== scenario 5: %s%n", scenario.name());
				this.runs.addAll(bench.runMemory(sizes::memory));
			}
		}
	}

	private void runJdbc() throws Exception {
		if (!this.options.scenarios().contains(4)) {
			return;
		}
		int records = this.options.sizes().jdbcRecords();
		this.names.put(4, "JDBC: " + records + " records, sendBatch then consume");
		System.out.printf("%n== scenario 4: %s%n", this.names.get(4));
		try (JdbcBench bench = new JdbcBench(this.options, this::progress)) {
			this.runs.addAll(bench.run(records));
		}
	}

	/** Scenario 10: JDBC end to end, producers and 1-3 consumer instances at the same time. */
	private void runJdbcEndToEnd() throws Exception {
		if (!this.options.scenarios().contains(JdbcEndToEndBench.SCENARIO)) {
			return;
		}
		int records = this.options.sizes().jdbcEndToEndRecords();
		this.names.put(JdbcEndToEndBench.SCENARIO, "JDBC end to end: " + records
				+ " records sent while 1-3 instances consume, defaults; p50/p99 from sendBatch return to listener");
		System.out.printf("%n== scenario %d: %s%n", JdbcEndToEndBench.SCENARIO, this.names.get(JdbcEndToEndBench.SCENARIO));
		try (JdbcEndToEndBench bench = new JdbcEndToEndBench(this.options, this::progress)) {
			this.runs.addAll(bench.run(records));
		}
	}

	/** Scenarios 6-8: the Kafka scenarios 1-3 on RocketMQ, ours next to DefaultMQPushConsumer. */
	private void runRocketMq() throws Exception {
		Scenarios sizes = this.options.sizes();
		List<Scenario> chosen = new ArrayList<>();
		for (Scenario kafka : List.of(sizes.zeroWork(), sizes.ioBound(), sizes.skew())) {
			Scenario scenario = RocketMqBench.of(kafka);
			if (this.options.scenarios().contains(scenario.number())) {
				chosen.add(scenario);
			}
		}
		if (chosen.isEmpty()) {
			return;
		}
		try (RocketMqBench bench = new RocketMqBench(this.options, this::progress)) {
			for (Scenario scenario : chosen) {
				describe(scenario);
				this.runs.addAll(bench.run(scenario));
			}
		}
	}

	/** Scenario 11: the same listener at-least-once and exactly-once, on H2 and PostgreSQL. */
	private void runExactlyOnce() throws Exception {
		if (!this.options.scenarios().contains(ExactlyOnceBench.SCENARIO)) {
			return;
		}
		int records = ExactlyOnceBench.records(this.options);
		this.names.put(ExactlyOnceBench.SCENARIO, "JDBC exactly-once vs at-least-once: " + records
				+ " records, one row inserted per record");
		System.out.printf("%n== scenario %d: %s%n", ExactlyOnceBench.SCENARIO, this.names.get(ExactlyOnceBench.SCENARIO));
		try (ExactlyOnceBench bench = new ExactlyOnceBench(this::progress)) {
			this.runs.addAll(bench.run(records, this.options.rounds(), !this.options.quick()));
		}
	}

	private void describe(Scenario scenario) {
		this.names.put(scenario.number(), scenario.name());
		if (scenario.hasWork()) {
			this.ideal.put(scenario.number(), scenario.idealThroughput());
		}
		System.out.printf("%n== scenario %d: %s, %,d records, ideal %s%n", scenario.number(), scenario.name(),
				scenario.records(), scenario.hasWork()
						? String.format("%,.0f records/s (%.2f s)", scenario.idealThroughput(), scenario.idealSeconds())
						: "n/a");
	}

	private void progress(RunResult result) {
		sampleLoad();
		System.out.printf(Locale.ROOT, "  %d r%d %-30s %,12.0f rec/s  start %,6.0f ms  p50 %,8.1f  p99 %,8.1f ms  "
				+ "heap +%,.0f MiB%s  %,d/%,d%s  (load %.1f)%n", result.scenario(), result.round(), result.contender(),
				result.throughput(), result.startMillis(), result.p50Millis(), result.p99Millis(), result.peakHeapMb(),
				Double.isNaN(result.retainedHeapMb()) ? "" : String.format(" retained %.1f MiB", result.retainedHeapMb()),
				result.processed(), result.records(), result.backlogMax() >= 0 ? " backlog max " + result.backlogMax() : "",
				ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
	}

	private void sampleLoad() {
		double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
		this.loadMin = Math.min(this.loadMin, load);
		this.loadMax = Math.max(this.loadMax, load);
	}

	private List<String> header(double seconds) {
		Runtime runtime = Runtime.getRuntime();
		return List.of("# batch-consumer benchmarks" + (this.options.quick() ? " (quick)" : ""), "",
				String.format(Locale.ROOT, "Run %s, %.0f s; %d cores, 1-minute load average %.1f–%.1f (sampled after "
						+ "every run); Java %s, max heap %d MiB; one in-process Kafka broker (KRaft) in the same JVM (scenarios 6-8: a RocketMQ name server and broker); "
						+ "%d measured round(s), contenders interleaved, warm-up cap %s, run cap %s.",
						LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).substring(0, 16), seconds,
						runtime.availableProcessors(), this.loadMin, this.loadMax, System.getProperty("java.version"),
						runtime.maxMemory() / (1024 * 1024), this.options.rounds(), this.options.warmUp(),
						this.options.maxRun()),
				"",
				"records/s: distinct records from the first processed to the last (group join excluded, shown as "
						+ "'start'). p50/p99: time from the contender's first processed record to each record's "
						+ "processing (every record is in the topic before the run). peak heap: highest heap used "
						+ "above the post-GC baseline, sampled every 5 ms.");
	}

}

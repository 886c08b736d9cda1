package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import io.confluent.parallelconsumer.ParallelConsumerOptions.ProcessingOrder;
import org.HdrHistogram.Histogram;

import io.batchconsumer.benchmarks.Blocker;
import io.batchconsumer.benchmarks.GcCount;
import io.batchconsumer.benchmarks.HeapSampler;
import io.batchconsumer.benchmarks.RunResult;
import io.batchconsumer.benchmarks.RunnerOptions;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.ThreadCpu;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.kafka.KafkaTransport;

/**
 * Runs the Kafka scenarios: fills a scenario's topic once, gives every contender one warm-up run,
 * then measured rounds in which the contenders take turns (the starting contender rotates each
 * round), each run reading the whole topic with a fresh group.
 *
 * <p>Threading: used by the runner thread only.
 */
public final class KafkaBench implements AutoCloseable {

	private static final Duration FIRST_FETCH_TIMEOUT = Duration.ofSeconds(60);

	private static final double MIB = 1024.0 * 1024.0;

	/** Numbers every run of this JVM, so that two runners sharing a broker never share a group. */
	private static final AtomicInteger RUNS = new AtomicInteger();

	private final RunnerOptions options;

	private final Consumer<RunResult> progress;

	private final BenchBroker broker;

	private final KafkaTransport transport;

	private final List<Contender> contenders;

	/**
	 * Starts the broker and builds the contenders.
	 * @param options the runner options
	 * @param progress told of every measured run as it ends
	 */
	public KafkaBench(RunnerOptions options, Consumer<RunResult> progress) {
		this.options = options;
		this.progress = progress;
		this.broker = new BenchBroker(options.broker());
		String bootstrap = this.broker.bootstrap();
		this.transport = new KafkaTransport(transportProperties(bootstrap));
		this.contenders = Stream.<Contender>of(new PlainConsumerContender(bootstrap), new SpringKafkaContender(bootstrap),
				new ParallelConsumerContender(bootstrap, ProcessingOrder.UNORDERED),
				new ParallelConsumerContender(bootstrap, ProcessingOrder.KEY), new BarrierContender(bootstrap),
				new HandOffContender(bootstrap),
				new BatchConsumerContender(this.transport, Ordering.UNORDERED),
				new BatchConsumerContender(this.transport, Ordering.KEY),
				new BatchConsumerContender(this.transport, Ordering.PARTITION),
				BatchConsumerContender.defaults(this.transport, Ordering.UNORDERED, false),
				BatchConsumerContender.defaults(this.transport, Ordering.KEY, false),
				BatchConsumerContender.defaults(this.transport, Ordering.UNORDERED, true),
				BatchConsumerContender.defaults(this.transport, Ordering.KEY, true),
				BatchConsumerContender.defaultsEachMessage(this.transport, Ordering.UNORDERED),
				BatchConsumerContender.defaultsEachMessage(this.transport, Ordering.KEY),
				BatchConsumerContender.defaultsEachMessage(this.transport, Ordering.PARTITION), new PerfectPoolContender())
			.filter((contender) -> chosen(contender, options))
			.toList();
	}

	/**
	 * Whether the command line chose a contender: named, or any that runs unnamed when none is named.
	 * @param contender the contender
	 * @param options the command line
	 * @return {@code true} when it runs
	 */
	static boolean chosen(Contender contender, RunnerOptions options) {
		return contender.runsUnnamed() ? options.includes(contender.name()) : options.named(contender.name());
	}

	/**
	 * Runs a throughput scenario (1–3).
	 * @param scenario the scenario
	 * @return every measured run
	 * @throws Exception when the broker fails
	 */
	public List<RunResult> run(Scenario scenario) throws Exception {
		this.broker.fill(scenario);
		List<Contender> racing = this.contenders.stream()
			.filter((contender) -> contender.consumesTheTopic() || scenario.hasWork())
			.toList();
		if (!this.options.warmUp().isZero()) {
			for (Contender contender : racing) {
				measure(contender, scenario, 0, this.options.warmUp());
			}
		}
		List<RunResult> results = new ArrayList<>();
		for (int round = 1; round <= this.options.rounds(); round++) {
			for (int i = 0; i < racing.size(); i++) {
				Contender contender = racing.get((i + round - 1) % racing.size());
				RunResult result = measure(contender, scenario, round, this.options.maxRun());
				results.add(result);
				this.progress.accept(result);
			}
		}
		return results;
	}

	private RunResult measure(Contender contender, Scenario scenario, int round, Duration cap) throws Exception {
		Tally tally = new Tally(scenario.records(), scenario.partitions());
		try (HeapSampler heap = new HeapSampler()) {
			long cpuAtStart = ThreadCpu.processNanos();
			long brokerAtStart = ThreadCpu.brokerNanos();
			long jitAtStart = ThreadCpu.compilerMillis();
			GcCount gcAtStart = GcCount.now();
			long start = System.nanoTime();
			String group = group(scenario, round);
			Contender.Running running = contender.start(scenario, group, tally);
			boolean complete = tally.await(cap);
			String process = ThreadCpu.process((cpuAtStart < 0) ? -1 : ThreadCpu.processNanos() - cpuAtStart,
					System.nanoTime() - start, scenario.records()) + ThreadCpu.broker(brokerAtStart, scenario.records());
			String collections = GcCount.now().since(gcAtStart) + "; " + ThreadCpu.compiler(jitAtStart);
			long end = complete ? tally.lastNanos() : System.nanoTime();
			long committed = (complete && contender.consumesTheTopic())
					? this.broker.awaitCommittedToEnd(scenario, group, Duration.ofSeconds(10)) : -1;
			String note = (complete ? "" : "stopped after " + cap.toSeconds() + " s; ") + running.note() + "; "
					+ process + "; " + collections;
			long first = tally.firstNanos();
			if (committed > 0 && first > 0) {
				note = String.format("committed to the end %,.0f ms after the last record (%,.0f records/s to the "
						+ "commit); ", (committed - end) / 1e6, tally.distinct() / ((committed - first) / 1e9)) + note;
			}
			running.close();
			double seconds = (first == 0) ? Double.NaN : (end - first) / 1e9;
			Histogram latency = tally.latencyMicros();
			boolean any = latency.getTotalCount() > 0;
			return new RunResult(scenario.number(), contender.name(), round, scenario.records(), tally.distinct(),
					tally.duplicates(), (first == 0) ? 0 : tally.distinct() / seconds,
					(first == 0) ? Double.NaN : (first - start) / 1e6,
					any ? latency.getValueAtPercentile(50) / 1e3 : Double.NaN,
					any ? latency.getValueAtPercentile(99) / 1e3 : Double.NaN, heap.peakAboveBaseline() / MIB,
					Double.NaN, -1, note);
		}
	}

	/**
	 * Runs the memory scenario (5): each contender starts in front of the full topic with a listener
	 * that blocks; after the hold time the heap is collected and measured, then the listener is
	 * released and the contender stopped.
	 * @param blockerFactory the memory scenario around a fresh blocker, one per run
	 * @return one run per contender
	 * @throws Exception when the broker fails
	 */
	public List<RunResult> runMemory(Function<Blocker, Scenario> blockerFactory) throws Exception {
		List<RunResult> results = new ArrayList<>();
		for (Contender contender : this.contenders.stream().filter(Contender::consumesTheTopic).toList()) {
			Blocker blocker = new Blocker();
			Scenario scenario = blockerFactory.apply(blocker);
			this.broker.fill(scenario);
			Tally tally = new Tally(scenario.records(), scenario.partitions());
			try (HeapSampler heap = new HeapSampler()) {
				Contender.Running running = contender.start(scenario, group(scenario, 1), tally);
				heap.watch(running::buffered);
				awaitFirstFetch(running);
				Thread.sleep(this.options.hold().toMillis());
				long retained = HeapSampler.settledHeap() - heap.baseline();
				long buffered = heap.peakGauge();
				long processed = tally.distinct();
				blocker.release();
				running.close();
				RunResult result = new RunResult(scenario.number(), contender.name(), 1, scenario.records(),
						processed, tally.duplicates(), Double.NaN, Double.NaN, Double.NaN, Double.NaN,
						heap.peakAboveBaseline() / MIB, retained / MIB, buffered, memoryNote(contender, scenario));
				results.add(result);
				this.progress.accept(result);
			}
		}
		return results;
	}

	/**
	 * The hold measures a consumer that fetches: one that tells its buffered count is waited for
	 * until it fetched something (a group join on a loaded machine can take longer than the hold).
	 */
	private static void awaitFirstFetch(Contender.Running running) throws InterruptedException {
		long deadline = System.nanoTime() + FIRST_FETCH_TIMEOUT.toNanos();
		while (running.buffered() == 0 && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
	}

	private static String memoryNote(Contender contender, Scenario scenario) {
		if (!(contender instanceof BatchConsumerContender ours)) {
			return "";
		}
		long[] bounds = backlogBounds(ours.options(scenario, "bound"), scenario.partitions());
		return String.format("limits: pull-threshold-for-queue x partitions + one pull = %,d; "
				+ "(pull-threshold-for-queue + one pull) x partitions = %,d", bounds[0], bounds[1]);
	}

	/**
	 * The two backlog limits of ours with these options: {@code threshold × partitions + pull batch}
	 * (one pull over all partitions), and {@code (threshold + pull batch) × partitions} (flow control
	 * looks at each partition before a poll, and one poll may bring a whole pull batch to one
	 * partition).
	 * @param options the options the container runs with
	 * @param partitions the partitions it consumes
	 * @return the two limits, tighter first
	 */
	static long[] backlogBounds(ContainerOptions options, int partitions) {
		long threshold = options.pullThresholdForQueue();
		long pull = options.pullBatchSize();
		return new long[] { threshold * partitions + pull, (threshold + pull) * partitions };
	}

	/** A new group per run; named after this process too, since runners in other JVMs may share the broker. */
	private static String group(Scenario scenario, int round) {
		return "s" + scenario.number() + "-r" + round + "-" + RUNS.incrementAndGet() + "-p" + ProcessHandle.current().pid();
	}

	/**
	 * Our transport's client properties: the broker, and for experiments any Kafka client property a
	 * {@code bench.transport.<property>} system property names
	 * ({@code -Dbench.transport.max.partition.fetch.bytes=4194304}); the other contenders take theirs
	 * from {@code bench.client.<property>} ({@link KafkaClients}).
	 */
	static Map<String, Object> transportProperties(String bootstrap) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("bootstrap.servers", bootstrap);
		properties.putAll(KafkaClients.overrides("bench.transport."));
		return properties;
	}

	@Override
	public void close() {
		this.transport.close();
		this.broker.close();
	}

}

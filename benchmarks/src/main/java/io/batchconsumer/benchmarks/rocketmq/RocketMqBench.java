package io.batchconsumer.benchmarks.rocketmq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.HdrHistogram.Histogram;

import io.batchconsumer.benchmarks.HeapSampler;
import io.batchconsumer.benchmarks.RunResult;
import io.batchconsumer.benchmarks.RunnerOptions;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.kafka.Contender;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.rocketmq.RocketMqSettings;
import io.batchconsumer.rocketmq.RocketMqTransport;

/**
 * Runs the RocketMQ scenarios (6: zero work, 7: one queue 0–5 ms, 8: skew — the Kafka scenarios
 * 1–3 on RocketMQ): fills a scenario's topic once, gives every contender one warm-up run, then
 * measured rounds in which the contenders take turns, each run reading the whole topic with a fresh
 * group, as {@link io.batchconsumer.benchmarks.kafka.KafkaBench} does.
 *
 * <p>Threading: used by the runner thread only.
 */
public final class RocketMqBench implements AutoCloseable {

	private static final double MIB = 1024.0 * 1024.0;

	private final RunnerOptions options;

	private final Consumer<RunResult> progress;

	private final BenchRocketMq rocketMq;

	private final RocketMqTransport transport;

	private final List<Contender> contenders;

	private int runs;

	/**
	 * Starts the name server and broker and builds the contenders.
	 * @param options the runner options
	 * @param progress told of every measured run as it ends
	 * @throws Exception when RocketMQ does not start
	 */
	public RocketMqBench(RunnerOptions options, Consumer<RunResult> progress) throws Exception {
		this.options = options;
		this.progress = progress;
		this.rocketMq = new BenchRocketMq();
		this.transport = new RocketMqTransport(RocketMqSettings.of(this.rocketMq.nameServer()));
		this.contenders = Stream.<Contender>of(new PushConsumerContender(this.rocketMq.nameServer()),
				new RocketMqBatchConsumerContender(this.transport, Ordering.UNORDERED),
				new RocketMqBatchConsumerContender(this.transport, Ordering.KEY))
			.filter((contender) -> options.includes(contender.name()))
			.toList();
	}

	/**
	 * The RocketMQ form of a Kafka scenario: number + 5, same records, threads and work.
	 * @param kafka scenario 1, 2 or 3
	 * @return scenario 6, 7 or 8
	 */
	public static Scenario of(Scenario kafka) {
		return new Scenario(kafka.number() + 5, "RocketMQ: " + kafka.name().replace("partition", "queue"), kafka.topic(),
				kafka.partitions(), kafka.records(), kafka.payloadBytes(), kafka.keys(), kafka.threads(),
				kafka.sliceSize(), kafka.pollRecords(), kafka.work());
	}

	/**
	 * Runs a throughput scenario.
	 * @param scenario the scenario
	 * @return every measured run
	 * @throws Exception when the broker fails
	 */
	public List<RunResult> run(Scenario scenario) throws Exception {
		this.rocketMq.fill(scenario);
		if (!this.options.warmUp().isZero()) {
			for (Contender contender : this.contenders) {
				measure(contender, scenario, 0, this.options.warmUp());
			}
		}
		List<RunResult> results = new ArrayList<>();
		for (int round = 1; round <= this.options.rounds(); round++) {
			for (int i = 0; i < this.contenders.size(); i++) {
				Contender contender = this.contenders.get((i + round - 1) % this.contenders.size());
				RunResult result = measure(contender, scenario, round, this.options.maxRun());
				results.add(result);
				this.progress.accept(result);
			}
		}
		return results;
	}

	private RunResult measure(Contender contender, Scenario scenario, int round, Duration cap) throws Exception {
		Tally tally = new Tally(scenario.records());
		try (HeapSampler heap = new HeapSampler()) {
			long start = System.nanoTime();
			Contender.Running running = contender.start(scenario, "s" + scenario.number() + "-r" + round + "-" + (++this.runs),
					tally);
			boolean complete = tally.await(cap);
			long end = complete ? tally.lastNanos() : System.nanoTime();
			String note = complete ? running.note() : "stopped after " + cap.toSeconds() + " s; " + running.note();
			running.close();
			long first = tally.firstNanos();
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

	@Override
	public void close() {
		this.transport.close(); // the shared name server and broker stop at JVM exit
	}

}

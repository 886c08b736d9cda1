package io.batchconsumer.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.batchconsumer.benchmarks.CommitIntervalTargets.Target;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.spi.Transport;

/**
 * What committing more often costs under load, and what it saves on a kill: a pre-filled topic
 * consumed at zero work (the worst case for the commit's share) with every option at the
 * transport's defaults but {@code commit.interval}, on an H2 file, a SQLite file, an embedded
 * PostgreSQL, the in-process Kafka broker and, when named, the in-process RocketMQ broker. Per
 * round each target runs every interval, the order of the intervals rotating each round. Per run:
 * messages/s from the first message handled to the last; the CPU time per message of this JVM
 * (brokers, H2 and SQLite included) and, on PostgreSQL, of the server's processes
 * ({@code PostgresCpu}: every process of the machine named {@code postgres}); the commits; and the
 * replay window ({@link ReplayWindow}: messages finished but not committed, sampled every 2 ms) as
 * its mean, its 99th percentile and the mean in milliseconds of work at the run's rate. At the end,
 * per target and interval, the medians and the median of the per-round ratios to the first
 * interval.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.CommitIntervalBench
 * [rounds] [intervals] [targets] [jdbc-messages] [broker-records]}, defaults 5, {@code 1s,100ms,50ms},
 * {@code H2,SQLite,PostgreSQL,Kafka} (add {@code RocketMQ} to name it), 600,000 and 4,000,000.
 * {@code -Dbench.option.<key>=N} sets an integer option as in the runner.
 *
 * <p>Threading: the main thread; the listener on the container's workers; the sampler's thread.
 */
public final class CommitIntervalBench {

	private CommitIntervalBench() {
	}

	public static void main(String[] args) throws Exception {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 5;
		List<Duration> intervals = new ArrayList<>();
		for (String interval : ((args.length > 1) ? args[1] : "1s,100ms,50ms").split(",")) {
			intervals.add(parse(interval));
		}
		List<String> names = List.of(((args.length > 2) ? args[2] : "H2,SQLite,PostgreSQL,Kafka").split(","));
		int jdbcMessages = (args.length > 3) ? Integer.parseInt(args[3]) : 600_000;
		int kafkaRecords = (args.length > 4) ? Integer.parseInt(args[4]) : 4_000_000;
		Map<String, List<double[]>> results = new LinkedHashMap<>();
		try (CommitIntervalTargets targets = new CommitIntervalTargets(names, jdbcMessages, kafkaRecords)) {
			for (Target target : targets.all()) {
				run(target, intervals.get(0), -1); // warm-up
			}
			for (int round = 1; round <= rounds; round++) {
				for (Target target : targets.all()) {
					for (int i = 0; i < intervals.size(); i++) {
						int index = (i + round - 1) % intervals.size();
						double[] run = run(target, intervals.get(index), round);
						results.computeIfAbsent(target.name() + "|" + index, (k) -> new ArrayList<>()).add(run);
					}
				}
			}
			summarize(targets.all(), intervals, results, rounds);
		}
		System.exit(0); // the in-process RocketMQ broker's threads would keep the JVM alive
	}

	/** @return messages/s, mean window, p99 window, mean window in ms of work, commits, CPU µs per message */
	private static double[] run(Target target, Duration interval, int round) throws Exception {
		CommitIntervalTargets.Prepared prepared = target.prepare();
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
			.getOperatingSystemMXBean();
		Transport transport = prepared.transport();
		ContainerOptions options = BenchOptions.overridden(transport.optionsBuilder(prepared.group())
			.topics(prepared.topic()).group(prepared.group()).commitInterval(interval));
		CountDownLatch done = new CountDownLatch(1);
		AtomicLong handled = new AtomicLong();
		AtomicLong first = new AtomicLong();
		AtomicLong last = new AtomicLong();
		BatchContainer[] holder = new BatchContainer[1];
		ReplayWindow window = new ReplayWindow(() -> holder[0].stats());
		int messages = prepared.messages();
		SliceListener listener = (slice) -> {
			window.finished(slice);
			long now = System.nanoTime();
			long total = handled.addAndGet(slice.size());
			if (total == slice.size()) {
				first.set(now);
				window.start();
			}
			if (total >= messages) {
				last.set(now);
				done.countDown();
			}
			return BatchResult.success();
		};
		BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
				transport.deadLetterSink(options));
		holder[0] = container;
		long cpuBefore = os.getProcessCpuTime() + target.serverCpuNanos();
		container.start();
		try {
			if (!done.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException(target.name() + ": " + handled.get() + " of " + messages + " handled");
			}
		}
		finally {
			window.stop();
			container.stop();
			prepared.close();
		}
		double cpuMicros = (os.getProcessCpuTime() + target.serverCpuNanos() - cpuBefore) / 1e3 / messages;
		double seconds = (last.get() - first.get()) / 1e9;
		double rate = messages / seconds;
		long commits = container.stats().commitsSucceeded();
		double[] result = { rate, window.mean(), window.p99(), window.mean() / rate * 1000, commits, cpuMicros };
		System.out.printf(Locale.ROOT, "%s %-10s %6s %,10.0f msg/s  %6.2f µs CPU/msg  replay window mean %,8.0f p99 %,8d"
				+ " messages (%,6.1f ms of work)  %,5d commits%n", (round < 0) ? "warm-up " : "round " + round,
				target.name(), format(interval), rate, cpuMicros, result[1], (long) result[2], result[3], commits);
		return result;
	}

	private static void summarize(List<Target> targets, List<Duration> intervals, Map<String, List<double[]>> results,
			int rounds) {
		System.out.printf(Locale.ROOT, "%n| target | interval | msg/s (median) | / %1$s, per round (median, range) "
				+ "| CPU µs/msg | / %1$s, per round | commits | replay window mean (median) | p99 | ms of work |%n"
				+ "|---|---|---:|---|---:|---|---:|---:|---:|---:|%n", format(intervals.get(0)));
		for (Target target : targets) {
			List<double[]> base = results.get(target.name() + "|0");
			for (int index = 0; index < intervals.size(); index++) {
				List<double[]> runs = results.get(target.name() + "|" + index);
				double[] ratios = new double[rounds];
				double[] cpuRatios = new double[rounds];
				for (int r = 0; r < rounds; r++) {
					ratios[r] = runs.get(r)[0] / base.get(r)[0];
					cpuRatios[r] = runs.get(r)[5] / base.get(r)[5];
				}
				java.util.Arrays.sort(ratios);
				java.util.Arrays.sort(cpuRatios);
				System.out.printf(Locale.ROOT, "| %s | %s | %,.0f | %.2f (%.2f–%.2f) | %.2f | %.2f (%.2f–%.2f) | %,.0f | %,.0f "
						+ "| %,.0f | %.1f |%n", target.name(), format(intervals.get(index)), median(runs, 0), median(ratios),
						ratios[0], ratios[rounds - 1], median(runs, 5), median(cpuRatios), cpuRatios[0],
						cpuRatios[rounds - 1], median(runs, 4), median(runs, 1), median(runs, 2), median(runs, 3));
			}
		}
	}

	private static double median(List<double[]> runs, int column) {
		return median(runs.stream().mapToDouble((run) -> run[column]).sorted().toArray());
	}

	private static double median(double[] sorted) {
		int n = sorted.length;
		return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

	private static Duration parse(String text) {
		String value = text.trim();
		if (value.endsWith("ms")) {
			return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
		}
		if (value.endsWith("s")) {
			return Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
		}
		return Duration.ofMillis(Long.parseLong(value));
	}

	private static String format(Duration interval) {
		return (interval.toMillis() % 1000 == 0 && interval.toMillis() > 0) ? interval.toSeconds() + "s"
				: interval.toMillis() + "ms";
	}

}

package io.batchconsumer.benchmarks.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

/**
 * Batches by count only against batches that wait for a minimum (and a byte bound), for a list
 * listener whose call costs a fixed time plus a time per message (a bulk insert, a call to a batch
 * API): on an H2 file with 4 queues, 4 worker threads, {@code unordered}, slices and pulls of 500.
 * A producer thread sends 100-byte messages while the container consumes, in sends of 20 paced to
 * a steady rate (or as fast as it can, rate 0); each message carries the time just before its send.
 * Per run: messages/s from the first send to the last message handled, messages per listener call,
 * the share of the workers' time spent in calls, and the wait from the send to the listener's call
 * (p50, p99). The contenders take turns in each
 * round, the first one rotating; at the end, the medians per contender and the median of the
 * per-round ratios to count-only batches.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.jdbc.BatchFillBench
 * [messages] [rate] [rounds] [call-millis] [per-message-micros]} (defaults 20,000, 4,000 msg/s, 5,
 * 5 ms, 20 µs).
 *
 * <p>Threading: the main thread and the producer thread; the listener on the container's workers.
 */
public final class BatchFillBench {

	private static final int THREADS = 4;

	private static final int SEND = 20;

	private static final int PAYLOAD = 100;

	private BatchFillBench() {
	}

	public static void main(String[] args) throws Exception {
		int messages = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rate = (args.length > 1) ? Integer.parseInt(args[1]) : 4_000;
		int rounds = (args.length > 2) ? Integer.parseInt(args[2]) : 5;
		long callNanos = TimeUnit.MILLISECONDS.toNanos((args.length > 3) ? Long.parseLong(args[3]) : 5);
		long perMessageNanos = TimeUnit.MICROSECONDS.toNanos((args.length > 4) ? Long.parseLong(args[4]) : 20);
		Map<String, UnaryOperator<ContainerOptions.Builder>> contenders = new LinkedHashMap<>();
		contenders.put("count only", (b) -> b);
		contenders.put("min 100, wait 100ms", (b) -> b.consumerBatchMinSize(100)
			.consumerBatchMaxWait(Duration.ofMillis(100)));
		contenders.put("min 100, wait 100ms, 8 KB", (b) -> b.consumerBatchMinSize(100)
			.consumerBatchMaxWait(Duration.ofMillis(100)).consumerBatchMaxBytes(8 * 1024));
		List<String> names = new ArrayList<>(contenders.keySet());
		Map<String, List<double[]>> results = new LinkedHashMap<>();
		Path dir = Files.createTempDirectory("batch-fill-bench");
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:file:" + dir.resolve("queue").toAbsolutePath());
		config.setMaximumPoolSize(8);
		int[] tables = new int[1];
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			Run run = new Run(dataSource, messages, rate, callNanos, perMessageNanos);
			run.once("warm-up", ++tables[0], contenders.get(names.get(0)));
			for (int round = 1; round <= rounds; round++) {
				for (int i = 0; i < names.size(); i++) {
					String name = names.get((i + round - 1) % names.size());
					double[] result = run.once("round " + round + " " + name, ++tables[0], contenders.get(name));
					results.computeIfAbsent(name, (k) -> new ArrayList<>()).add(result);
				}
			}
		}
		summarize(names, results, rounds);
	}

	private static void summarize(List<String> names, Map<String, List<double[]>> results, int rounds) {
		System.out.printf(Locale.ROOT, "%n| contender | msg/s | / count only (median, range) | messages a call "
				+ "| calls | workers busy | p50 wait ms | p99 wait ms | p99 / count only |%n"
				+ "|---|---:|---|---:|---:|---:|---:|---:|---:|%n");
		List<double[]> base = results.get(names.get(0));
		for (String name : names) {
			List<double[]> runs = results.get(name);
			double[] ratios = new double[rounds];
			double[] p99Ratios = new double[rounds];
			for (int r = 0; r < rounds; r++) {
				ratios[r] = runs.get(r)[0] / base.get(r)[0];
				p99Ratios[r] = runs.get(r)[3] / base.get(r)[3];
			}
			java.util.Arrays.sort(ratios);
			java.util.Arrays.sort(p99Ratios);
			System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f (%.2f–%.2f) | %.1f | %,.0f | %.0f %% | %.1f | %.1f | %.2f |%n",
					name, median(runs, 0), median(ratios), ratios[0], ratios[rounds - 1], median(runs, 4),
					median(runs, 1), median(runs, 5), median(runs, 2), median(runs, 3), median(p99Ratios));
		}
	}

	private static double median(List<double[]> runs, int column) {
		return median(runs.stream().mapToDouble((run) -> run[column]).sorted().toArray());
	}

	private static double median(double[] sorted) {
		int n = sorted.length;
		return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

	/** One run on fresh tables: produce and consume at once. */
	private record Run(HikariDataSource dataSource, int messages, int rate, long callNanos, long perMessageNanos) {

		/** @return msg/s, calls, p50 ms, p99 ms, messages a call, share of the workers' time in calls (%) */
		double[] once(String label, int table, UnaryOperator<ContainerOptions.Builder> contender) throws Exception {
			JdbcSettings settings = JdbcSettings.defaults().withTablePrefix("bf" + table + "_")
				.withInitializeSchema(SchemaInitialization.ALWAYS).withQueuesPerTopic(4).withInstanceId("bench");
			try (JdbcTransport transport = new JdbcTransport(this.dataSource, settings)) {
				ContainerOptions options = contender.apply(ContainerOptions.builder("bulk").topics("bulk").group("bulk")
					.threadSize(THREADS).consumerBatchSize(500).pullBatchSize(500).ordering(Ordering.UNORDERED)).build();
				CountDownLatch done = new CountDownLatch(this.messages);
				AtomicLong calls = new AtomicLong();
				AtomicLong last = new AtomicLong();
				AtomicLong busy = new AtomicLong();
				Histogram waits = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(10), 3);
				SliceListener listener = (slice) -> {
					long now = System.nanoTime();
					for (Message<byte[]> message : slice) {
						waits.recordValue(Math.max(0, now - Records.index(message.payload())));
					}
					calls.incrementAndGet();
					LockSupport.parkNanos(this.callNanos + this.perMessageNanos * slice.size());
					long end = System.nanoTime();
					busy.addAndGet(end - now);
					last.set(end);
					slice.forEach((message) -> done.countDown());
					return BatchResult.success();
				};
				BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
						transport.deadLetterSink(options));
				container.start();
				long start = System.nanoTime();
				Thread producer = new Thread(() -> produce(transport, start), "batch-fill-producer");
				producer.start();
				boolean finished = done.await(10, TimeUnit.MINUTES);
				producer.join();
				container.stop();
				if (!finished) {
					throw new IllegalStateException(label + ": " + done.getCount() + " messages not handled");
				}
				double seconds = (last.get() - start) / 1e9;
				double[] result = { this.messages / seconds, calls.get(), waits.getValueAtPercentile(50) / 1e6,
						waits.getValueAtPercentile(99) / 1e6, (double) this.messages / calls.get(),
						100.0 * busy.get() / (THREADS * (last.get() - start)) };
				System.out.printf(Locale.ROOT, "%-40s %,8.0f msg/s  %,6d calls (%5.1f a call)  workers busy %3.0f %%"
						+ "  wait p50 %6.1f ms  p99 %6.1f ms%n", label, result[0], calls.get(), result[4], result[5],
						result[2], result[3]);
				return result;
			}
		}

		private void produce(JdbcTransport transport, long start) {
			for (int first = 0; first < this.messages; first += SEND) {
				if (this.rate > 0) {
					long due = start + (long) (first * 1e9 / this.rate);
					long wait = due - System.nanoTime();
					if (wait > 0) {
						LockSupport.parkNanos(wait);
					}
				}
				List<Object> batch = new ArrayList<>(SEND);
				long now = System.nanoTime();
				for (int i = first; i < Math.min(first + SEND, this.messages); i++) {
					batch.add(Records.value(now, PAYLOAD));
				}
				transport.producer().sendBatchOrThrow("bulk", batch);
			}
		}

	}

}

package io.batchconsumer.benchmarks.jdbc;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariDataSource;
import org.HdrHistogram.Histogram;

import io.batchconsumer.benchmarks.HeapSampler;
import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.RunResult;
import io.batchconsumer.benchmarks.RunnerOptions;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

/**
 * Scenario 4: on an H2 file database and on embedded PostgreSQL, ours sends the records with
 * {@code sendBatch} of 100 and consumes them with a container (tuned: 4 threads, slices of 50,
 * pulls of 500, unordered; and with every option at its default), next to {@link PlainJdbcQueue}
 * doing the same inserts and selects by hand. Each round uses fresh tables; ours and plain take
 * turns.
 *
 * <p>Threading: used by the runner thread only.
 */
public final class JdbcBench implements AutoCloseable {

	private static final int SEND_BATCH = 100;

	private static final int PAYLOAD = 100;

	private static final double MIB = 1024.0 * 1024.0;

	private final RunnerOptions options;

	private final Consumer<RunResult> progress;

	private final BenchDatabases databases;

	/**
	 * Starts PostgreSQL (about 2 s) and opens both pools.
	 * @param options the runner options
	 * @param progress told of every measured run
	 * @throws IOException when PostgreSQL does not start
	 */
	public JdbcBench(RunnerOptions options, Consumer<RunResult> progress) throws IOException {
		this.options = options;
		this.progress = progress;
		this.databases = new BenchDatabases("jdbc", 8);
	}

	/**
	 * Runs the warm-up (a tenth of the records) and the rounds.
	 * @param records records per run
	 * @return every measured run
	 * @throws Exception when a database fails
	 */
	public List<RunResult> run(int records) throws Exception {
		if (!this.options.warmUp().isZero()) {
			for (HikariDataSource dataSource : List.of(this.databases.h2(), this.databases.pg())) {
				ours(dataSource, Math.max(1000, records / 10), 0);
				plain(dataSource, Math.max(1000, records / 10), 0);
			}
		}
		List<RunResult> results = new ArrayList<>();
		for (int round = 1; round <= this.options.rounds(); round++) {
			for (HikariDataSource dataSource : List.of(this.databases.h2(), this.databases.pg())) {
				List<RunResult> ours = (round % 2 == 1) ? ours(dataSource, records, round) : List.of();
				List<RunResult> plain = plain(dataSource, records, round);
				if (round % 2 == 0) {
					ours = ours(dataSource, records, round);
				}
				for (RunResult result : concat(ours, plain)) {
					results.add(result);
					this.progress.accept(result);
				}
			}
		}
		return results;
	}

	private List<RunResult> ours(HikariDataSource dataSource, int records, int round) throws Exception {
		int tables = this.databases.nextTable();
		JdbcSettings settings = JdbcSettings.defaults()
			.withTablePrefix("b" + tables + "_")
			.withInitializeSchema(SchemaInitialization.ALWAYS);
		List<RunResult> results = new ArrayList<>();
		try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			try (HeapSampler heap = new HeapSampler()) {
				long start = System.nanoTime();
				for (int from = 0; from < records; from += SEND_BATCH) {
					List<Object> batch = new ArrayList<>(SEND_BATCH);
					for (int i = from; i < Math.min(records, from + SEND_BATCH); i++) {
						batch.add(Records.value(i, PAYLOAD));
					}
					if (!transport.producer().sendBatch("bench", batch).stream().allMatch(SendResult::isStored)) {
						throw new IllegalStateException("sendBatch did not store every message");
					}
				}
				results.add(rate("batch-consumer sendBatch", dataSource, round, records, records,
						(System.nanoTime() - start) / 1e9, heap));
			}
			ContainerOptions tuned = ContainerOptions.builder("tuned-" + tables).topics("bench")
				.group("tuned").threadSize(4).consumerBatchSize(50).pullBatchSize(500)
				.ordering(Ordering.UNORDERED).build();
			results.add(consume("batch-consumer consume", transport, tuned, dataSource, records, round));
			ContainerOptions defaults = ContainerOptions.builder("defaults-" + tables).topics("bench")
				.group("defaults").build();
			results.add(consume("batch-consumer consume, defaults", transport, defaults, dataSource, records, round));
		}
		return results;
	}

	private RunResult consume(String name, JdbcTransport transport, ContainerOptions options,
			HikariDataSource dataSource, int records, int round) throws Exception {
		Tally tally = new Tally(records);
		try (HeapSampler heap = new HeapSampler()) {
			long start = System.nanoTime();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
				for (Message<byte[]> message : slice) {
					tally.processed(Records.index(message.payload()));
				}
				return BatchResult.success();
			}, transport.deadLetterSink(options));
			container.start();
			boolean complete = tally.await(this.options.maxRun());
			long end = complete ? tally.lastNanos() : System.nanoTime();
			container.stop();
			return measured(name, dataSource, round, records, tally, start, end, heap);
		}
	}

	private List<RunResult> plain(HikariDataSource dataSource, int records, int round) throws Exception {
		PlainJdbcQueue queue = new PlainJdbcQueue(dataSource, "plain" + this.databases.nextTable(), dataSource == this.databases.pg());
		List<RunResult> results = new ArrayList<>();
		try (HeapSampler heap = new HeapSampler()) {
			long start = System.nanoTime();
			queue.insert(records, SEND_BATCH, PAYLOAD);
			results.add(rate("plain JDBC insert", dataSource, round, records, records, (System.nanoTime() - start) / 1e9,
					heap));
		}
		Tally tally = new Tally(records);
		try (HeapSampler heap = new HeapSampler()) {
			long start = System.nanoTime();
			queue.select(500, tally);
			results.add(measured("plain JDBC select", dataSource, round, records, tally, start, System.nanoTime(), heap));
		}
		queue.drop();
		return results;
	}

	private RunResult measured(String name, HikariDataSource dataSource, int round, int records, Tally tally,
			long start, long end, HeapSampler heap) {
		Histogram latency = tally.latencyMicros();
		long first = (tally.firstNanos() == 0) ? end : tally.firstNanos();
		double seconds = Math.max(1e-9, (end - first) / 1e9);
		return new RunResult(4, name + " (" + database(dataSource) + ")", round, records, tally.distinct(),
				tally.duplicates(), tally.distinct() / seconds, (first - start) / 1e6,
				latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
				heap.peakAboveBaseline() / MIB, Double.NaN, -1, tally.distinct() < records ? "incomplete" : "");
	}

	private RunResult rate(String name, HikariDataSource dataSource, int round, int records, long processed,
			double seconds, HeapSampler heap) {
		return new RunResult(4, name + " (" + database(dataSource) + ")", round, records, processed, 0,
				processed / seconds, 0, Double.NaN, Double.NaN, heap.peakAboveBaseline() / MIB, Double.NaN, -1, "");
	}

	private String database(HikariDataSource dataSource) {
		return this.databases.name(dataSource);
	}

	private static List<RunResult> concat(List<RunResult> a, List<RunResult> b) {
		List<RunResult> all = new ArrayList<>(a);
		all.addAll(b);
		return all;
	}

	@Override
	public void close() throws IOException {
		this.databases.close();
	}

}

package io.batchconsumer.benchmarks.jdbc;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariDataSource;
import org.HdrHistogram.Histogram;

import io.batchconsumer.benchmarks.BenchOptions;
import io.batchconsumer.benchmarks.HeapSampler;
import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.RunResult;
import io.batchconsumer.benchmarks.RunnerOptions;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.ThreadCpu;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

/**
 * Scenario 10, JDBC end to end: producers and consumers run at the same time (the table starts
 * empty). Two producer threads send {@code sendBatch} of 100 (keys {@code k<i % 1000>}, 100 B) as
 * fast as they can while 1 (H2 file, PostgreSQL), 2 or 3 (PostgreSQL) consumer instances — each a
 * container on a transport of its own, with an instance id of its own, in one group
 * ({@code mode=clustering}) — consume with every container option at its default. The clock runs
 * from the first {@code sendBatch} call to the last message handled; the latency of a message is
 * the time from the return of the {@code sendBatch} that stored it to the listener's call with it.
 * The producers use a transport of their own. Before producing, the run waits until the group's leases are spread (each instance holds its fair
 * share of the 4 queues). Lease duration 3 s instead of 30 s, so that the instances settle in about
 * a second instead of ten; nothing else differs from the defaults (but for {@link BenchOptions}
 * overrides). Each run's note gives the CPU time per message of the producer threads, the instances'
 * threads, the whole Java process and, on PostgreSQL, the server's processes ({@link PostgresCpu}).
 *
 * <p>Threading: used by the runner thread; producers and listeners write into atomic arrays read
 * after the run.
 */
public final class JdbcEndToEndBench implements AutoCloseable {

	/** The scenario number in the runner's table. */
	public static final int SCENARIO = 10;

	private static final int SEND_BATCH = 100;

	private static final int PRODUCERS = 2;

	private static final int PAYLOAD = 100;

	private static final int KEYS = 1000;

	private static final String TOPIC = "e2e";

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final double MIB = 1024.0 * 1024.0;

	/** The start of the names of the instances' owner and worker threads. */
	private static final String CONSUMER_THREADS = "batch-consumer-e2e-";

	private final RunnerOptions options;

	private final Consumer<RunResult> progress;

	private final BenchDatabases databases;

	/**
	 * Starts PostgreSQL and opens both pools.
	 * @param options the runner options
	 * @param progress told of every measured run
	 * @throws IOException when PostgreSQL does not start
	 */
	public JdbcEndToEndBench(RunnerOptions options, Consumer<RunResult> progress) throws IOException {
		this(options, progress, new BenchDatabases("e2e", 16));
	}

	/**
	 * On databases of the caller's; {@link #close()} closes them.
	 * @param options the runner options
	 * @param progress told of every measured run
	 * @param databases where the runs' tables go
	 */
	JdbcEndToEndBench(RunnerOptions options, Consumer<RunResult> progress, BenchDatabases databases) {
		this.options = options;
		this.progress = progress;
		this.databases = databases;
	}

	/**
	 * Runs the warm-up (a tenth of the records, PostgreSQL with one instance and H2) and the rounds.
	 * @param records records per run
	 * @return every measured run
	 * @throws Exception when a database fails
	 */
	public List<RunResult> run(int records) throws Exception {
		if (!this.options.warmUp().isZero()) {
			run(this.databases.h2(), 1, Math.max(1000, records / 10), 0);
			run(this.databases.pg(), 1, Math.max(1000, records / 10), 0);
		}
		List<RunResult> results = new ArrayList<>();
		for (int round = 1; round <= this.options.rounds(); round++) {
			List<RunResult> roundResults = new ArrayList<>();
			roundResults.add(run(this.databases.h2(), 1, records, round));
			for (int instances = 1; instances <= 3; instances++) {
				roundResults.add(run(this.databases.pg(), instances, records, round));
			}
			roundResults.forEach(this.progress);
			results.addAll(roundResults);
		}
		return results;
	}

	/**
	 * One run on fresh tables.
	 * @param dataSource one of the databases' pools
	 * @param instances consumer instances
	 * @param records messages the producers send
	 * @param round the round, in the result
	 * @return the run's result, msg/s from the first send to the last message handled
	 * @throws Exception when the database fails
	 */
	RunResult run(HikariDataSource dataSource, int instances, int records, int round) throws Exception {
		String prefix = "e" + this.databases.nextTable() + "_";
		Tally tally = new Tally(records);
		AtomicLongArray returned = new AtomicLongArray(records);
		AtomicLongArray received = new AtomicLongArray(records);
		List<JdbcTransport> transports = new ArrayList<>();
		List<BatchContainer> containers = new ArrayList<>();
		try (HeapSampler heap = new HeapSampler()) {
			for (int i = 0; i < instances; i++) {
				JdbcTransport transport = new JdbcTransport(dataSource, JdbcSettings.defaults().withTablePrefix(prefix)
					.withInitializeSchema(SchemaInitialization.ALWAYS).withLeaseDuration(LEASE)
					.withInstanceId("bench-e2e-" + i));
				transports.add(transport);
				ContainerOptions defaults = BenchOptions.overridden(transport.optionsBuilder("e2e-" + i).topics(TOPIC).group("e2e"));
				BatchContainer container = new BatchContainer(defaults, transport.createSource(defaults), (slice) -> {
					long now = System.nanoTime();
					for (Message<byte[]> message : slice) {
						long index = Records.index(message.payload());
						received.compareAndSet((int) index, 0, now);
						tally.processed(index);
					}
					return BatchResult.success();
				}, transport.deadLetterSink(defaults));
				containers.add(container);
			}
			// The producers have a transport of their own, as a separate process would: a producer wakes
			// the waiting polls of its own transport only.
			JdbcTransport producer = new JdbcTransport(dataSource, JdbcSettings.defaults().withTablePrefix(prefix)
				.withInitializeSchema(SchemaInitialization.ALWAYS).withInstanceId("bench-e2e-producer"));
			transports.add(producer);
			containers.forEach(BatchContainer::start);
			String spread = awaitSpread(dataSource, prefix, instances);
			boolean pg = dataSource == this.databases.pg();
			Cpu before = Cpu.now(pg);
			AtomicLong producerCpu = new AtomicLong();
			long start = System.nanoTime();
			double sendSeconds = produce(producer, records, returned, producerCpu);
			boolean complete = tally.await(this.options.maxRun());
			long end = complete ? tally.lastNanos() : System.nanoTime();
			String cpu = Cpu.now(pg).since(before, producerCpu.get(), records);
			containers.forEach(BatchContainer::stop);
			String batches = String.format(Locale.ROOT, "batches %d, whole %d",
					containers.stream().mapToLong((c) -> c.stats().batchesOpened()).sum(),
					containers.stream().mapToLong((c) -> c.stats().batchesWhole()).sum());
			RunResult result = result(dataSource, instances, round, records, tally, returned, received, start, end,
					sendSeconds, spread + "; " + cpu + "; " + batches, heap);
			if (pg) {
				this.databases.reportStatements("e2e-" + instances + "-r" + round);
			}
			return result;
		}
		finally {
			for (JdbcTransport transport : transports) {
				transport.close();
			}
		}
	}

	/** Two threads send the records in batches of 100; returns the seconds they took and adds their CPU time. */
	private static double produce(JdbcTransport transport, int records, AtomicLongArray returned, AtomicLong cpu)
			throws Exception {
		long start = System.nanoTime();
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			int producer = p;
			Thread thread = new Thread(() -> {
				for (int from = producer * SEND_BATCH; from < records; from += PRODUCERS * SEND_BATCH) {
					List<OutgoingMessage> batch = new ArrayList<>(SEND_BATCH);
					int to = Math.min(records, from + SEND_BATCH);
					for (int i = from; i < to; i++) {
						batch.add(OutgoingMessage.of(Records.key(i, KEYS), Records.value(i, PAYLOAD)));
					}
					transport.producer().sendBatchOrThrow(TOPIC, batch);
					long now = System.nanoTime();
					for (int i = from; i < to; i++) {
						returned.set(i, now);
					}
				}
				cpu.addAndGet(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
			}, "bench-e2e-producer-" + p);
			thread.start();
			producers.add(thread);
		}
		for (Thread thread : producers) {
			thread.join();
		}
		return (System.nanoTime() - start) / 1e9;
	}

	/**
	 * CPU time so far of the instances' threads, the Java process and PostgreSQL's processes
	 * ({@code -1} when not measured).
	 */
	private record Cpu(long consumers, long process, long postgres) {

		static Cpu now(boolean postgres) {
			return new Cpu(ThreadCpu.nanos(CONSUMER_THREADS, ""), ThreadCpu.processNanos(),
					postgres ? PostgresCpu.nanos() : -1);
		}

		/** The note part: microseconds per message of each since {@code before}, the producers' given. */
		String since(Cpu before, long producers, int messages) {
			double perMessage = 1e3 * messages;
			return String.format(Locale.ROOT, "CPU us/msg: producers %.1f, consumers %.1f, process %.1f", producers
					/ perMessage, (this.consumers - before.consumers) / perMessage, (this.process - before.process)
							/ perMessage)
					+ ((this.postgres >= 0) ? String.format(Locale.ROOT, ", postgres %.1f",
							(this.postgres - before.postgres) / perMessage) : "");
		}

	}

	/** Waits until every queue is leased and each instance holds its share; returns the spread, e.g. "2/1/1". */
	private String awaitSpread(HikariDataSource dataSource, String prefix, int instances) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		String spread = "";
		while (System.nanoTime() < deadline) {
			List<Integer> counts = new ArrayList<>();
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + prefix + "lease WHERE topic = '" + TOPIC
							+ "' GROUP BY owner_id ORDER BY COUNT(*) DESC")) {
				while (rs.next()) {
					counts.add(rs.getInt(1));
				}
			}
			spread = String.join("/", counts.stream().map(String::valueOf).toList());
			int total = counts.stream().mapToInt(Integer::intValue).sum();
			int share = (4 + instances - 1) / instances;
			if (counts.size() == instances && total == 4 && counts.get(0) <= share) {
				return spread;
			}
			Thread.sleep(50);
		}
		return spread + " (not settled)";
	}

	private RunResult result(HikariDataSource dataSource, int instances, int round, int records, Tally tally,
			AtomicLongArray returned, AtomicLongArray received, long start, long end, double sendSeconds,
			String spread, HeapSampler heap) {
		Histogram latency = new Histogram(3);
		for (int i = 0; i < records; i++) {
			if (received.get(i) != 0 && returned.get(i) != 0) {
				latency.recordValue(Math.max(0, (received.get(i) - returned.get(i)) / 1_000));
			}
		}
		double seconds = Math.max(1e-9, (end - start) / 1e9);
		String name = "batch-consumer e2e, " + instances + (instances == 1 ? " instance" : " instances") + " ("
				+ this.databases.name(dataSource) + ")";
		String note = String.format(Locale.ROOT, "sendBatch %,.0f msg/s while consuming; queues %s",
				records / sendSeconds, spread) + (tally.distinct() < records ? "; incomplete" : "");
		return new RunResult(SCENARIO, name, round, records, tally.distinct(), tally.duplicates(),
				tally.distinct() / seconds, 0, latency.getValueAtPercentile(50) / 1e3,
				latency.getValueAtPercentile(99) / 1e3, heap.peakAboveBaseline() / MIB, Double.NaN, -1, note);
	}

	@Override
	public void close() throws IOException {
		this.databases.close();
	}

}

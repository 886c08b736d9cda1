package io.batchconsumer.benchmarks.jdbc;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.benchmarks.BenchOptions;
import io.batchconsumer.benchmarks.BenchmarkRunner;
import io.batchconsumer.benchmarks.RunResult;
import io.batchconsumer.benchmarks.RunnerOptions;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.core.exactlyonce.DeliveryTransaction;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;
import io.batchconsumer.core.exactlyonce.JdbcDeliveryTransaction;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

/**
 * Scenario {@value #SCENARIO} of the {@link BenchmarkRunner}: exactly-once against at-least-once on
 * the JDBC transport (H2 file and embedded PostgreSQL) with the same listener: it inserts one row
 * per message, in one transaction per slice. At-least-once runs that transaction alone;
 * exactly-once adds the completion marks to it. Each round consumes the same number of pre-filled
 * messages from fresh tables; the modes take turns within a round, H2 first, then PostgreSQL; the
 * ratio is exactly-once throughput over at-least-once throughput ({@code Ratios}). Integer options
 * can be overridden ({@link BenchOptions}).
 *
 * <p>Alone: {@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.jdbc.ExactlyOnceBench
 * [messages] [rounds]} prints one line per database.
 *
 * <p>Threading: the main thread only, but the listener on the container's workers.
 */
public final class ExactlyOnceBench implements AutoCloseable {

	/** The scenario number in the runner's table. */
	public static final int SCENARIO = 11;

	/** The contenders, per database: {@code at-least-once (H2)}, {@code exactly-once (H2)}, .... */
	public static final List<String> MODES = List.of("at-least-once", "exactly-once");

	private static final int SEND_BATCH = 500;

	private final Consumer<RunResult> progress;

	private final BenchDatabases databases;

	/**
	 * Starts the databases.
	 * @param progress told of every measured run
	 * @throws IOException when PostgreSQL or the H2 directory cannot be set up
	 */
	public ExactlyOnceBench(Consumer<RunResult> progress) throws IOException {
		this(progress, new BenchDatabases("eo", 8));
	}

	/**
	 * On databases of the caller's; {@link #close()} closes them.
	 * @param progress told of every measured run
	 * @param databases where the runs' tables go
	 */
	ExactlyOnceBench(Consumer<RunResult> progress, BenchDatabases databases) {
		this.progress = progress;
		this.databases = databases;
	}

	/** What the listener of a {@link #consume} run does. */
	enum Mode {

		/** Counts the messages, outside any transaction. */
		COUNT,

		/** Inserts one row per message, in one transaction per slice. */
		AT_LEAST_ONCE,

		/** The same, with the slice's completion marks in that transaction. */
		EXACTLY_ONCE

	}

	/**
	 * The messages per round: 20,000 times the scale, 1,000 in quick mode.
	 * @param options the runner's options
	 * @return the count
	 */
	public static int records(RunnerOptions options) {
		return (int) Math.max(100, Math.round((options.quick() ? 1_000 : 20_000) * options.scale()));
	}

	/**
	 * Runs the comparison and prints one line per database.
	 * @param args messages per round (default 20,000), rounds per mode (default 2)
	 * @throws Exception when a database fails
	 */
	public static void main(String[] args) throws Exception {
		int messages = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 2;
		try (ExactlyOnceBench bench = new ExactlyOnceBench((result) -> { })) {
			List<RunResult> results = bench.run(messages, rounds, true);
			for (String database : bench.databases.byName().keySet()) {
				double alo = mean(results, MODES.get(0) + " (" + database + ")");
				double eo = mean(results, MODES.get(1) + " (" + database + ")");
				System.out.printf(Locale.ROOT, "%s: at-least-once %.0f msg/s, exactly-once %.0f msg/s, ratio %.2f%n",
						database, alo, eo, eo / alo);
			}
		}
		System.exit(0);
	}

	/**
	 * Runs every round on every database, the modes taking turns.
	 * @param messages messages per round
	 * @param rounds measured rounds
	 * @param warmUp whether a smaller unmeasured round of each mode goes first on each database
	 * @return one row per mode, database and round
	 * @throws Exception when a database fails
	 */
	public List<RunResult> run(int messages, int rounds, boolean warmUp) throws Exception {
		List<RunResult> results = new ArrayList<>();
		for (Map.Entry<String, HikariDataSource> database : this.databases.byName().entrySet()) {
			if (warmUp) {
				run(database.getValue(), Math.min(messages, 5_000), false);
				run(database.getValue(), Math.min(messages, 5_000), true);
			}
			for (int round = 1; round <= rounds; round++) {
				for (String mode : MODES) {
					double seconds = run(database.getValue(), messages, mode.equals(MODES.get(1)));
					RunResult result = new RunResult(SCENARIO, mode + " (" + database.getKey() + ")", round, messages,
							messages, 0, messages / seconds, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, -1, "");
					this.progress.accept(result);
					results.add(result);
				}
			}
		}
		return results;
	}

	private static double mean(List<RunResult> results, String contender) {
		return results.stream().filter((r) -> r.contender().equals(contender)).mapToDouble(RunResult::throughput)
			.average().orElse(Double.NaN);
	}

	@Override
	public void close() throws IOException {
		this.databases.close();
	}

	private double run(DataSource dataSource, int messages, boolean exactlyOnce) throws Exception {
		return consume(dataSource, messages, exactlyOnce ? Mode.EXACTLY_ONCE : Mode.AT_LEAST_ONCE);
	}

	/**
	 * Consumes pre-filled messages from fresh tables.
	 * @param dataSource the database
	 * @param messages how many are sent before the container starts
	 * @param mode what the listener does
	 * @return the seconds from the container's start to the last message handled
	 * @throws Exception when the database fails or the run takes longer than 5 minutes
	 */
	double consume(DataSource dataSource, int messages, Mode mode) throws Exception {
		String prefix = "eo" + this.databases.nextTable() + "_";
		JdbcSettings settings = JdbcSettings.defaults().withTablePrefix(prefix)
			.withInitializeSchema(SchemaInitialization.ALWAYS).withQueuesPerTopic(4).withInstanceId("bench");
		try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE " + prefix + "rows (msg_offset BIGINT NOT NULL, queue_id INT NOT NULL,"
						+ " payload VARCHAR(200) NOT NULL)");
			}
			fill(transport, messages);
			CountDownLatch done = new CountDownLatch(messages);
			ContainerOptions options = BenchOptions.overridden(ContainerOptions.builder("bench").topics("bench")
				.group("bench").threadSize(4).consumerBatchSize(50).pullBatchSize(500).ordering(Ordering.UNORDERED));
			DeliveryTransaction transaction = new JdbcDeliveryTransaction(dataSource);
			SliceListener writer = writer(prefix, done);
			BatchContainer container;
			if (mode == Mode.EXACTLY_ONCE) {
				ExactlyOnce processing = new ExactlyOnce(options, transaction, dataSource, new CompletionTable(prefix));
				container = new BatchContainer(options, processing.source(transport.createSource(options)),
						processing.listener(writer), processing.deadLetterSink(transport.deadLetterSink(options)));
			}
			else if (mode == Mode.COUNT) {
				container = new BatchContainer(options, transport.createSource(options), (slice) -> {
					slice.forEach((message) -> done.countDown());
					return BatchResult.success();
				}, transport.deadLetterSink(options));
			}
			else {
				container = new BatchContainer(options, transport.createSource(options),
						(slice) -> transaction.execute((connection) -> writer.onSlice(slice)),
						transport.deadLetterSink(options));
			}
			long start = System.nanoTime();
			container.start();
			if (!done.await(5, TimeUnit.MINUTES)) {
				throw new IllegalStateException("not finished: " + done.getCount() + " left");
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			container.stop();
			return seconds;
		}
	}

	private static SliceListener writer(String prefix, CountDownLatch done) {
		return (slice) -> {
			Connection connection = JdbcDeliveryTransaction.currentConnection();
			try (PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO " + prefix + "rows (msg_offset, queue_id, payload) VALUES (?, ?, ?)")) {
				for (Message<byte[]> message : slice) {
					insert.setLong(1, message.offset());
					insert.setInt(2, message.partition());
					insert.setString(3, new String(message.payload()));
					insert.addBatch();
				}
				insert.executeBatch();
			}
			slice.forEach((message) -> done.countDown());
			return BatchResult.success();
		};
	}

	private static void fill(JdbcTransport transport, int messages) {
		for (int first = 0; first < messages; first += SEND_BATCH) {
			List<Object> batch = new ArrayList<>();
			for (int id = first; id < Math.min(first + SEND_BATCH, messages); id++) {
				batch.add("message-" + id + "-".repeat(50));
			}
			transport.producer().sendBatch("bench", batch);
		}
	}

}

package io.batchconsumer.benchmarks.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;
import io.batchconsumer.core.exactlyonce.JdbcDeliveryTransaction;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

/**
 * The size of a SQLite file under steady traffic with a short retention: a producer thread sends
 * at a fixed rate (sends of a tenth of a second's messages), a container with every option at its
 * default consumes (at-least-once, or exactly-once with its marks), and the transport's retention
 * cleaner deletes what is older than the retention. Every sample interval it prints the file's
 * and the {@code -wal} file's size, SQLite's page and free-list counts, the rows of the message
 * table (and of the completion table) and the backlog; at the end, the growth of the file over the
 * second half of the run, which is 0 when the size is bounded.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.jdbc.SqliteFileSizeBench
 * [minutes] [rate] [payload-bytes] [retention-seconds] [exactly-once] [sample-seconds]} (defaults 60,
 * 500 msg/s, 1,024, 60, false, 60). The file is in a new temporary directory, deleted at the end.
 *
 * <p>Threading: the main thread samples, one producer thread sends; the listener runs on the
 * container's workers and only counts.
 */
public final class SqliteFileSizeBench {

	private static final String TOPIC = "size";

	private static final String PREFIX = "sz_";

	private static final double MIB = 1024.0 * 1024.0;

	private SqliteFileSizeBench() {
	}

	public static void main(String[] args) throws Exception {
		int minutes = (args.length > 0) ? Integer.parseInt(args[0]) : 60;
		int rate = (args.length > 1) ? Integer.parseInt(args[1]) : 500;
		int payload = (args.length > 2) ? Integer.parseInt(args[2]) : 1024;
		Duration retention = Duration.ofSeconds((args.length > 3) ? Long.parseLong(args[3]) : 60);
		boolean exactlyOnce = (args.length > 4) && Boolean.parseBoolean(args[4]);
		long sampleNanos = TimeUnit.SECONDS.toNanos((args.length > 5) ? Long.parseLong(args[5]) : 60);
		Path dir = Files.createTempDirectory("sqlite-size-bench");
		Path file = dir.resolve("queue.db");
		System.out.printf(Locale.ROOT, "%s, %d msg/s of %d B, retention %ds, %s, %d min%n", file, rate, payload,
				retention.toSeconds(), exactlyOnce ? "exactly-once" : "at-least-once", minutes);
		AtomicLong sent = new AtomicLong();
		AtomicLong handled = new AtomicLong();
		List<double[]> samples = new ArrayList<>();
		try (HikariDataSource dataSource = BenchDatabases.sqlite(file, "size", 8);
				JdbcTransport transport = new JdbcTransport(dataSource, JdbcSettings.defaults().withTablePrefix(PREFIX)
					.withInitializeSchema(SchemaInitialization.ALWAYS).withRetention(retention)
					.withInstanceId("bench-size"))) {
			ContainerOptions options = transport.optionsBuilder("size").topics(TOPIC).group("size").build();
			SliceListener counter = (slice) -> {
				handled.addAndGet(slice.size());
				return BatchResult.success();
			};
			BatchContainer container;
			if (exactlyOnce) {
				ExactlyOnce processing = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
						new CompletionTable(PREFIX), retention);
				container = new BatchContainer(options, processing.source(transport.createSource(options)),
						processing.listener(counter), processing.deadLetterSink(transport.deadLetterSink(options)));
			}
			else {
				container = new BatchContainer(options, transport.createSource(options), counter,
						transport.deadLetterSink(options));
			}
			container.start();
			long start = System.nanoTime();
			long end = start + TimeUnit.MINUTES.toNanos(minutes);
			Thread producer = new Thread(() -> produce(transport, rate, payload, start, end, sent), "bench-size-producer");
			producer.start();
			System.out.printf(Locale.ROOT, "%6s %10s %10s %8s %9s %9s %9s %9s %9s %9s%n", "minute", "sent", "handled",
					"backlog", "file MiB", "wal MiB", "pages", "free", "messages", "marks");
			for (long due = start + sampleNanos; due <= end; due += sampleNanos) {
				LockSupport.parkNanos(due - System.nanoTime());
				double[] sample = sample(dataSource, file, exactlyOnce, (due - start) / 6e10, sent.get(), handled.get());
				samples.add(sample);
				System.out.printf(Locale.ROOT, "%6.1f %,10d %,10d %,8d %9.1f %9.1f %,9d %,9d %,9d %,9d%n", sample[0],
						(long) sample[1], (long) sample[2], (long) (sample[1] - sample[2]), sample[3] / MIB,
						sample[4] / MIB, (long) sample[5], (long) sample[6], (long) sample[7], (long) sample[8]);
			}
			producer.join();
			container.stop();
		}
		summarize(samples);
		try (var files = Files.list(dir)) {
			files.forEach((path) -> path.toFile().delete());
		}
		Files.delete(dir);
		System.exit(0);
	}

	/** The file's growth over the second half of the run, and its largest size. */
	private static void summarize(List<double[]> samples) {
		if (samples.size() < 2) {
			return;
		}
		double[] middle = samples.get(samples.size() / 2);
		double[] last = samples.get(samples.size() - 1);
		double largest = samples.stream().mapToDouble((s) -> s[3]).max().orElse(0);
		double largestWal = samples.stream().mapToDouble((s) -> s[4]).max().orElse(0);
		System.out.printf(Locale.ROOT, "file %.1f MiB at minute %.0f, %.1f MiB at minute %.0f (growth %+.1f MiB); "
				+ "largest file %.1f MiB, largest wal %.1f MiB%n", middle[3] / MIB, middle[0], last[3] / MIB, last[0],
				(last[3] - middle[3]) / MIB, largest / MIB, largestWal / MIB);
	}

	/** minute, sent, handled, file bytes, wal bytes, page count, free-list count, message rows, mark rows. */
	private static double[] sample(DataSource dataSource, Path file, boolean exactlyOnce, double minute, long sent,
			long handled) throws Exception {
		Path wal = file.resolveSibling(file.getFileName() + "-wal");
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			return new double[] { minute, sent, handled, Files.size(file), Files.exists(wal) ? Files.size(wal) : 0,
					number(statement, "PRAGMA page_count"), number(statement, "PRAGMA freelist_count"),
					number(statement, "SELECT COUNT(*) FROM " + PREFIX + "message"),
					exactlyOnce ? number(statement, "SELECT COUNT(*) FROM " + new CompletionTable(PREFIX).name()) : 0 };
		}
	}

	private static long number(Statement statement, String sql) throws SQLException {
		try (ResultSet rs = statement.executeQuery(sql)) {
			return rs.next() ? rs.getLong(1) : -1;
		}
	}

	/** Sends a tenth of a second's messages every tenth of a second from {@code start} until {@code end}. */
	private static void produce(JdbcTransport transport, int rate, int payload, long start, long end, AtomicLong sent) {
		int perSend = Math.max(1, rate / 10);
		long interval = TimeUnit.SECONDS.toNanos(1) * perSend / rate;
		for (long due = start; due < end; due += interval) {
			long wait = due - System.nanoTime();
			if (wait > 0) {
				LockSupport.parkNanos(wait);
			}
			List<Object> batch = new ArrayList<>(perSend);
			for (int i = 0; i < perSend; i++) {
				batch.add(Records.value(sent.get() + i, payload));
			}
			transport.producer().sendBatchOrThrow(TOPIC, batch);
			sent.addAndGet(perSend);
		}
	}

}

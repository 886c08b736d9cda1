package io.batchconsumer.benchmarks.jdbc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

/**
 * What a kill in the middle of steady work makes the listener do again, counted from outside as a
 * user would see it, for two {@code commit.interval} values side by side in one run: a SQLite file
 * (the embedded default) with a topic of 4 queues that this JVM pre-fills and then keeps filling
 * from a producer thread (sends of 500 at a fixed rate), and a consumer process
 * ({@link ReplayKillConsumer}: the transport's defaults but the interval, a listener that records
 * each message in a table without a key) that is started, left to work for a random 2–5 s after
 * its first recorded slice, and killed with SIGKILL; the lives alternate between the two intervals,
 * the first of each pair changing every pair. Repeated by a kill: the messages that its life
 * recorded and a later life recorded again. At the end, per interval: the repeated messages per kill
 * (median and range), the life's rate in its last second (the messages it recorded in the second
 * before its last record) and the repeated messages in milliseconds of work at that rate; and the
 * ratios of the medians to those of the first interval.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.jdbc.ReplayKillBench
 * [kills-per-interval] [intervals-ms] [prefill] [rate]}, defaults 10, {@code 100,1000}, 600,000 and
 * 2,000 msg/s. The file is in a new temporary directory.
 *
 * <p>Threading: the main thread starts and kills the lives; one producer thread sends; one thread
 * per life reads its output.
 */
public final class ReplayKillBench {

	private static final int QUEUES = 4;

	private static final int SEND_BATCH = 500;

	private static final int KEYS = 1000;

	private static final long LEASE_SECONDS = 3;

	private ReplayKillBench() {
	}

	public static void main(String[] args) throws Exception {
		int killsPerInterval = (args.length > 0) ? Integer.parseInt(args[0]) : 10;
		long[] intervals = Arrays.stream(((args.length > 1) ? args[1] : "100,1000").split(","))
			.mapToLong((value) -> Long.parseLong(value.trim()))
			.toArray();
		int prefill = (args.length > 2) ? Integer.parseInt(args[2]) : 600_000;
		int rate = (args.length > 3) ? Integer.parseInt(args[3]) : 2_000;
		Path directory = Files.createTempDirectory("replay-kill-bench");
		Path file = directory.resolve("queue.db");
		Random random = new Random(42);
		try (HikariDataSource pool = BenchDatabases.sqlite(file, "replay-bench", 4);
				JdbcTransport transport = new JdbcTransport(pool, JdbcSettings.defaults()
					.withInitializeSchema(SchemaInitialization.ALWAYS).withQueuesPerTopic(QUEUES))) {
			transport.producer(); // creates the schema
			execute(pool, "CREATE TABLE processed (life INT NOT NULL, queue_id INT NOT NULL, msg_offset BIGINT NOT NULL,"
					+ " at_millis BIGINT NOT NULL)");
			execute(pool, "CREATE INDEX processed_msg ON processed (queue_id, msg_offset)");
			send(transport, prefill);
			AtomicBoolean producing = new AtomicBoolean(true);
			Thread producer = new Thread(() -> produce(transport, rate, producing), "replay-bench-producer");
			producer.start();
			int lives = killsPerInterval * intervals.length;
			long[] intervalOfLife = new long[lives + 1];
			for (int life = 0; life < lives; life++) {
				int pair = life / intervals.length;
				intervalOfLife[life] = intervals[(life + pair) % intervals.length];
				live(file, life, intervalOfLife[life], 2000 + random.nextInt(3001));
			}
			// One more life, killed like the others, so that the last counted kill's messages are redone.
			intervalOfLife[lives] = intervals[0];
			live(file, lives, intervals[0], 4000);
			producing.set(false);
			producer.join();
			summarize(pool, intervals, intervalOfLife, lives);
		}
	}

	private static void live(Path file, int life, long intervalMillis, long workMillis) throws Exception {
		List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
				"-cp", System.getProperty("java.class.path"), ReplayKillConsumer.class.getName(), file.toString(),
				Integer.toString(life), Long.toString(intervalMillis), Long.toString(LEASE_SECONDS));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		CountDownLatch working = new CountDownLatch(1);
		Thread reader = new Thread(() -> read(process, working, life), "replay-bench-life-" + life);
		reader.setDaemon(true);
		reader.start();
		try {
			if (!working.await(2, TimeUnit.MINUTES)) {
				throw new IllegalStateException("life " + life + " recorded nothing in 2 minutes");
			}
			Thread.sleep(workMillis); // the moment of the kill, not a synchronisation
		}
		finally {
			process.destroyForcibly(); // SIGKILL
			process.waitFor(30, TimeUnit.SECONDS);
		}
	}

	private static void read(Process process, CountDownLatch working, int life) {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				if (line.equals("WORKING")) {
					working.countDown();
				}
				else if (line.contains("WARN") || line.contains("ERROR") || line.contains("Exception")) {
					System.out.println("life " + life + ": " + line);
				}
			}
		}
		catch (java.io.IOException ex) {
			// the process was killed
		}
	}

	private static void produce(JdbcTransport transport, int rate, AtomicBoolean producing) {
		long pauseNanos = TimeUnit.SECONDS.toNanos(1) * SEND_BATCH / rate;
		long next = System.nanoTime();
		while (producing.get()) {
			send(transport, SEND_BATCH);
			next += pauseNanos;
			java.util.concurrent.locks.LockSupport.parkNanos(next - System.nanoTime());
		}
	}

	private static void send(JdbcTransport transport, int messages) {
		String payload = "x".repeat(100);
		for (int first = 0; first < messages; first += SEND_BATCH) {
			List<Object> batch = new ArrayList<>(SEND_BATCH);
			for (int i = first; i < Math.min(first + SEND_BATCH, messages); i++) {
				batch.add(OutgoingMessage.of("k" + (i % KEYS), payload));
			}
			transport.producer().sendBatchOrThrow(ReplayKillConsumer.TOPIC, batch);
		}
	}

	private static void summarize(HikariDataSource pool, long[] intervals, long[] intervalOfLife, int lives)
			throws SQLException {
		double[] medians = new double[intervals.length];
		double[] workMedians = new double[intervals.length];
		System.out.printf(Locale.ROOT, "%n| commit.interval | kills | repeated per kill, median (range) "
				+ "| rate in the last second, median | repeated in ms of work, median (range) |%n|---|---:|---|---:|---|%n");
		for (int i = 0; i < intervals.length; i++) {
			List<double[]> kills = new ArrayList<>();
			for (int life = 0; life < lives; life++) {
				if (intervalOfLife[life] == intervals[i]) {
					kills.add(kill(pool, life));
				}
			}
			double[] repeated = kills.stream().mapToDouble((kill) -> kill[0]).sorted().toArray();
			double[] rates = kills.stream().mapToDouble((kill) -> kill[1]).sorted().toArray();
			double[] work = kills.stream().mapToDouble((kill) -> kill[0] / kill[1] * 1000).sorted().toArray();
			medians[i] = median(repeated);
			workMedians[i] = median(work);
			System.out.printf(Locale.ROOT, "| %d ms | %d | %,.0f (%,.0f–%,.0f) | %,.0f msg/s | %.0f (%.0f–%.0f) |%n",
					intervals[i], kills.size(), medians[i], repeated[0], repeated[repeated.length - 1], median(rates),
					median(work), work[0], work[work.length - 1]);
		}
		for (int i = 1; i < intervals.length; i++) {
			System.out.printf(Locale.ROOT, "repeated per kill, median at %d ms / median at %d ms: %.3f (%.1f times fewer)%n",
					intervals[0], intervals[i], medians[0] / medians[i], medians[i] / Math.max(1, medians[0]));
			System.out.printf(Locale.ROOT, "repeated in ms of work, median at %d ms / median at %d ms: %.3f (%.1f times less)%n",
					intervals[0], intervals[i], workMedians[0] / workMedians[i], workMedians[i] / Math.max(1, workMedians[0]));
		}
	}

	/** @return the messages of the life that a later life recorded again, and the life's rate in msg/s */
	private static double[] kill(HikariDataSource pool, int life) throws SQLException {
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			long repeated;
			try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM (SELECT DISTINCT a.queue_id, a.msg_offset"
					+ " FROM processed a JOIN processed b ON b.queue_id = a.queue_id AND b.msg_offset = a.msg_offset"
					+ " AND b.life > a.life WHERE a.life = " + life + ")")) {
				rows.next();
				repeated = rows.getLong(1);
			}
			long recorded;
			try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM processed WHERE life = " + life)) {
				rows.next();
				recorded = rows.getLong(1);
			}
			try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM processed WHERE life = " + life
					+ " AND at_millis > (SELECT MAX(at_millis) - 1000 FROM processed WHERE life = " + life + ")")) {
				rows.next();
				double rate = rows.getLong(1);
				System.out.printf(Locale.ROOT, "life %d: %,d recorded, %,d repeated by a later life, %,.0f msg/s in its"
						+ " last second%n", life, recorded, repeated, rate);
				return new double[] { repeated, rate };
			}
		}
	}

	private static void execute(HikariDataSource pool, String sql) throws SQLException {
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	private static double median(double[] sorted) {
		int n = sorted.length;
		return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

}

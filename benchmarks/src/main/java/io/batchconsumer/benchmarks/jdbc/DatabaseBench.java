package io.batchconsumer.benchmarks.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.benchmarks.RunnerOptions;
import io.batchconsumer.benchmarks.jdbc.ExactlyOnceBench.Mode;

/**
 * The JDBC transport on a SQLite file, an H2 file and an embedded PostgreSQL side by side, in one
 * process, with the existing contenders:
 * <ul>
 * <li><b>pre-filled</b>: consume messages sent before the container starts, a listener that only
 * counts ({@link ExactlyOnceBench#consume}, 4 workers, slices of 50, pulls of 500, unordered);</li>
 * <li><b>end to end</b>: two producer threads send as fast as they can while one container with
 * every option at its default consumes ({@link JdbcEndToEndBench}, one instance);</li>
 * <li><b>at-least-once</b> and <b>exactly-once</b>: the pre-filled run with a listener that inserts
 * one row per message in a transaction per slice, alone or with the completion marks in it.</li>
 * </ul>
 * Each round runs every cell on the three databases one after the other, the first database
 * rotating per round (and at-least-once and exactly-once taking turns at going first), so that a
 * change of the machine's load hits all of them alike. At the end: the median msg/s per cell and
 * database, and the medians (with their range) of the per-round ratios SQLite/H2, SQLite/PostgreSQL
 * and exactly-once/at-least-once. The load average is printed with each round: the ratios are the
 * figures to compare, not the absolute rates.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.jdbc.DatabaseBench
 * [pre-filled] [end-to-end] [exactly-once] [rounds]} (messages per run; defaults 100,000, 40,000,
 * 40,000 and 5 rounds, after a warm-up round of a tenth of the sizes). The pre-filled and
 * exactly-once runs take integer container options from {@code -Dbench.option.<key>}
 * ({@link io.batchconsumer.benchmarks.BenchOptions}), e.g. {@code -Dbench.option.thread-size=1};
 * {@code -Dbench.databases=SQLite} runs on fewer databases (the ratios to a missing one are left out).
 *
 * <p>Threading: the main thread only (the contenders start their own threads and join them).
 */
public final class DatabaseBench {

	/** The databases, or those named by {@code -Dbench.databases=SQLite,H2}. */
	private static final List<String> DATABASES = List.of(System.getProperty("bench.databases", "SQLite,H2,PostgreSQL")
		.split(","));

	private static final String PREFILLED = "pre-filled";

	private static final String END_TO_END = "end to end";

	private static final String ALO = "at-least-once";

	private static final String EO = "exactly-once";

	private static final List<String> CELLS = List.of(PREFILLED, END_TO_END, ALO, EO);

	/** msg/s per cell, database and round. */
	private final Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>();

	private final BenchDatabases databases;

	private final ExactlyOnceBench consume;

	private final JdbcEndToEndBench endToEnd;

	private DatabaseBench(BenchDatabases databases) {
		this.databases = databases;
		this.consume = new ExactlyOnceBench((result) -> { }, databases);
		this.endToEnd = new JdbcEndToEndBench(RunnerOptions.parse(), (result) -> { }, databases);
	}

	public static void main(String[] args) throws Exception {
		int prefilled = (args.length > 0) ? Integer.parseInt(args[0]) : 100_000;
		int endToEnd = (args.length > 1) ? Integer.parseInt(args[1]) : 40_000;
		int exactlyOnce = (args.length > 2) ? Integer.parseInt(args[2]) : 40_000;
		int rounds = (args.length > 3) ? Integer.parseInt(args[3]) : 5;
		try (BenchDatabases databases = new BenchDatabases("db", 16, true)) {
			DatabaseBench bench = new DatabaseBench(databases);
			System.out.println("warm-up, load " + load());
			bench.round(0, Math.max(1000, prefilled / 10), Math.max(1000, endToEnd / 10),
					Math.max(1000, exactlyOnce / 10));
			for (int round = 1; round <= rounds; round++) {
				System.out.println("round " + round + ", load " + load());
				bench.round(round, prefilled, endToEnd, exactlyOnce);
			}
			System.out.println("end, load " + load());
			bench.summarize(rounds);
		}
		System.exit(0);
	}

	/** Every cell on every database; round 0 is the unrecorded warm-up. */
	private void round(int round, int prefilled, int endToEnd, int exactlyOnce) throws Exception {
		List<String> order = new ArrayList<>();
		for (int i = 0; i < DATABASES.size(); i++) {
			order.add(DATABASES.get((i + Math.max(0, round - 1)) % DATABASES.size()));
		}
		Map<String, HikariDataSource> pools = this.databases.byName();
		for (String database : order) {
			record(round, PREFILLED, database,
					prefilled / this.consume.consume(pools.get(database), prefilled, Mode.COUNT));
		}
		for (String database : order) {
			record(round, END_TO_END, database, this.endToEnd.run(pools.get(database), 1, endToEnd, round).throughput());
		}
		List<Mode> modes = (round % 2 == 1) ? List.of(Mode.AT_LEAST_ONCE, Mode.EXACTLY_ONCE)
				: List.of(Mode.EXACTLY_ONCE, Mode.AT_LEAST_ONCE);
		for (String database : order) {
			for (Mode mode : modes) {
				record(round, (mode == Mode.EXACTLY_ONCE) ? EO : ALO, database,
						exactlyOnce / this.consume.consume(pools.get(database), exactlyOnce, mode));
			}
		}
	}

	private void record(int round, String cell, String database, double throughput) {
		System.out.printf(Locale.ROOT, "  %-14s %-11s %,9.0f msg/s%n", cell, database, throughput);
		if (round > 0) {
			this.results.computeIfAbsent(cell, (k) -> new LinkedHashMap<>())
				.computeIfAbsent(database, (k) -> new ArrayList<>())
				.add(throughput);
		}
	}

	private void summarize(int rounds) {
		System.out.printf(Locale.ROOT, "%n| msg/s (median of %d) | SQLite | H2 | PostgreSQL | SQLite / H2 | "
				+ "SQLite / PostgreSQL |%n|---|---:|---:|---:|---|---|%n", rounds);
		for (String cell : CELLS) {
			Map<String, List<Double>> row = this.results.get(cell);
			System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %,.0f | %s | %s |%n", cell,
					median(row.get("SQLite")), median(row.get("H2")), median(row.get("PostgreSQL")),
					ratio(row.get("SQLite"), row.get("H2")), ratio(row.get("SQLite"), row.get("PostgreSQL")));
		}
		System.out.printf(Locale.ROOT, "%n| exactly-once / at-least-once | SQLite | H2 | PostgreSQL |%n|---|---|---|---|%n"
				+ "| median (range) of %d rounds |", rounds);
		for (String database : DATABASES) {
			System.out.print(" " + ratio(this.results.get(EO).get(database), this.results.get(ALO).get(database)) + " |");
		}
		System.out.println();
	}

	/** The median of the per-round ratios, with their range; "-" when a database did not run. */
	private static String ratio(List<Double> numerators, List<Double> denominators) {
		if (numerators == null || denominators == null) {
			return "-";
		}
		double[] ratios = new double[numerators.size()];
		for (int i = 0; i < ratios.length; i++) {
			ratios[i] = numerators.get(i) / denominators.get(i);
		}
		Arrays.sort(ratios);
		return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", median(ratios), ratios[0], ratios[ratios.length - 1]);
	}

	private static double median(List<Double> values) {
		if (values == null) {
			return Double.NaN;
		}
		return median(values.stream().mapToDouble(Double::doubleValue).sorted().toArray());
	}

	private static double median(double[] sorted) {
		int n = sorted.length;
		return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

	/** The 1-, 5- and 15-minute load averages. */
	private static String load() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return fields[0] + " " + fields[1] + " " + fields[2];
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

}

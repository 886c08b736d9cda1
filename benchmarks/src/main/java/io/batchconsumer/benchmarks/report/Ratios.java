package io.batchconsumer.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.batchconsumer.benchmarks.RunResult;
import io.batchconsumer.benchmarks.jdbc.ExactlyOnceBench;

/**
 * The ratios docs/benchmarks.md quotes, from the median rows: ours against the plain consumer (1), the
 * ideal, what this machine reaches (the perfect pool) and Parallel Consumer (2, 3), the barrier (3), plain JDBC (4) and exactly-once against
 * at-least-once (10).
 */
public final class Ratios {

	/** Names of ours in the Kafka scenarios. */
	public static final List<String> OURS = List.of("batch-consumer unordered", "batch-consumer key",
			"batch-consumer partition");

	private static final String PLAIN = "plain KafkaConsumer";

	private static final String BARRIER = "barrier (wait for the batch)";

	/** What the I/O scenarios can reach on this machine (see {@code PerfectPoolContender}). */
	private static final String PERFECT = "perfect pool (no broker)";

	private Ratios() {
	}

	/**
	 * One line per ratio that the rows allow.
	 * @param rows median rows
	 * @param ideal the ideal throughput of each scenario that has one
	 * @return Markdown bullet lines
	 */
	public static List<String> lines(List<RunResult> rows, Map<Integer, Double> ideal) {
		List<String> lines = new ArrayList<>();
		for (String ours : OURS) {
			ratio(lines, rows, 1, ours, PLAIN);
		}
		for (int scenario : List.of(2, 3)) {
			Double best = ideal.get(scenario);
			for (RunResult row : rows) {
				if (row.scenario() == scenario && best != null) {
					lines.add(String.format("(%d) `%s` / ideal (%,.0f records/s): **%.2f×**", scenario,
							row.contender(), best, row.throughput() / best));
				}
			}
		}
		for (int scenario : List.of(2, 3)) {
			for (RunResult row : rows) {
				if (row.scenario() == scenario && !row.contender().equals(PERFECT)) {
					ratio(lines, rows, scenario, row.contender(), PERFECT);
				}
			}
		}
		ratio(lines, rows, 2, "batch-consumer unordered", "Parallel Consumer unordered");
		ratio(lines, rows, 2, "batch-consumer key", "Parallel Consumer key");
		for (String ours : OURS) {
			ratio(lines, rows, 3, ours, BARRIER);
		}
		ratio(lines, rows, 3, "batch-consumer unordered", "Parallel Consumer unordered");
		ratio(lines, rows, 3, "batch-consumer key", "Parallel Consumer key");
		for (String database : List.of("H2", "PostgreSQL")) {
			ratio(lines, rows, 4, "batch-consumer sendBatch (" + database + ")", "plain JDBC insert (" + database + ")");
			ratio(lines, rows, 4, "batch-consumer consume (" + database + ")", "plain JDBC select (" + database + ")");
		}
		for (String database : List.of("H2", "PostgreSQL")) {
			ratio(lines, rows, ExactlyOnceBench.SCENARIO, "exactly-once (" + database + ")", "at-least-once (" + database + ")");
		}
		return lines;
	}

	private static void ratio(List<String> lines, List<RunResult> rows, int scenario, String ours, String other) {
		RunResult a = Medians.find(rows, scenario, ours);
		RunResult b = Medians.find(rows, scenario, other);
		if (a != null && b != null && b.throughput() > 0) {
			lines.add(String.format("(%d) `%s` / `%s`: **%.2f×** (%,.0f vs %,.0f records/s)", scenario, ours, other,
					a.throughput() / b.throughput(), a.throughput(), b.throughput()));
		}
	}

}

package io.batchconsumer.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.batchconsumer.benchmarks.RunResult;

/**
 * Folds the rounds of each (scenario, contender) into one row: the median of every measure, the
 * fewest records processed, the most duplicates and the highest backlog; the note of the median run.
 */
public final class Medians {

	private Medians() {
	}

	/**
	 * One row per scenario and contender, in the order they first ran.
	 * @param runs every measured run
	 * @return the medians, round 0
	 */
	public static List<RunResult> of(List<RunResult> runs) {
		Map<String, List<RunResult>> groups = new LinkedHashMap<>();
		for (RunResult run : runs) {
			groups.computeIfAbsent(run.scenario() + "|" + run.contender(), (k) -> new ArrayList<>()).add(run);
		}
		List<RunResult> rows = new ArrayList<>();
		groups.values().forEach((group) -> rows.add(fold(group)));
		rows.sort((a, b) -> Integer.compare(a.scenario(), b.scenario()));
		return rows;
	}

	private static RunResult fold(List<RunResult> group) {
		RunResult first = group.get(0);
		// The note of the median run (by throughput), not of every round.
		List<RunResult> byRate = new ArrayList<>(group);
		byRate.sort((a, b) -> Double.compare(a.throughput(), b.throughput()));
		String notes = byRate.get(byRate.size() / 2).note();
		if (group.size() > 1) {
			notes = (notes.isEmpty() ? "" : notes + "; ") + "median of " + group.size();
		}
		return new RunResult(first.scenario(), first.contender(), 0, first.records(),
				group.stream().mapToLong(RunResult::processed).min().orElse(0),
				group.stream().mapToLong(RunResult::duplicates).max().orElse(0), median(group, RunResult::throughput),
				median(group, RunResult::startMillis), median(group, RunResult::p50Millis),
				median(group, RunResult::p99Millis), median(group, RunResult::peakHeapMb),
				median(group, RunResult::retainedHeapMb),
				group.stream().mapToLong(RunResult::backlogMax).max().orElse(-1), notes);
	}

	/**
	 * The median of a measure (the upper middle value for an even count), NaN when none has it.
	 * @param group the runs
	 * @param measure the measure
	 * @return the median
	 */
	static double median(List<RunResult> group, ToDoubleFunction<RunResult> measure) {
		double[] values = group.stream().mapToDouble(measure).filter((v) -> !Double.isNaN(v)).sorted().toArray();
		return (values.length == 0) ? Double.NaN : values[values.length / 2];
	}

	/**
	 * The row of a contender in a scenario.
	 * @param rows median rows
	 * @param scenario the scenario number
	 * @param contender the contender's name
	 * @return the row, or {@code null}
	 */
	public static RunResult find(List<RunResult> rows, int scenario, String contender) {
		return rows.stream().filter((r) -> r.scenario() == scenario && r.contender().equals(contender)).findFirst()
			.orElse(null);
	}

}

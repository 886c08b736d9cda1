package io.batchconsumer.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.batchconsumer.benchmarks.RunResult;

/**
 * Writes {@code results.md} (the median table, the ratios and how it was measured),
 * {@code results.csv} (every run and every median) and {@code throughput.svg}.
 */
public final class ResultFiles {

	private ResultFiles() {
	}

	/**
	 * Writes the three files.
	 * @param dir the results directory, created if missing
	 * @param header lines describing the run (command, machine, load)
	 * @param runs every measured run
	 * @param scenarioNames the title of each scenario
	 * @param ideal the ideal throughput per scenario where there is one
	 * @throws IOException when a file cannot be written
	 */
	public static void write(Path dir, List<String> header, List<RunResult> runs, Map<Integer, String> scenarioNames,
			Map<Integer, Double> ideal) throws IOException {
		Files.createDirectories(dir);
		List<RunResult> rows = Medians.of(runs);
		Files.writeString(dir.resolve("results.md"), markdown(header, rows, scenarioNames, ideal));
		StringBuilder csv = new StringBuilder("scenario,contender,round,records,processed,duplicates,throughput,"
				+ "start_ms,p50_ms,p99_ms,peak_heap_mib,retained_heap_mib,backlog_max,note\n");
		for (List<RunResult> part : List.of(runs, rows)) {
			for (RunResult r : part) {
				csv.append(String.format(Locale.ROOT, "%d,\"%s\",%d,%d,%d,%d,%.0f,%.0f,%.2f,%.2f,%.1f,%.1f,%d,\"%s\"%n",
						r.scenario(), r.contender(), r.round(), r.records(), r.processed(), r.duplicates(),
						r.throughput(), r.startMillis(), r.p50Millis(), r.p99Millis(), r.peakHeapMb(),
						r.retainedHeapMb(), r.backlogMax(), r.note().replace("\"", "'")));
			}
		}
		Files.writeString(dir.resolve("results.csv"), csv);
		Files.writeString(dir.resolve("throughput.svg"), SvgChart.render(rows, scenarioNames));
	}

	/**
	 * The Markdown report.
	 * @param header lines describing the run
	 * @param rows median rows
	 * @param scenarioNames scenario titles
	 * @param ideal ideal throughputs
	 * @return the text
	 */
	public static String markdown(List<String> header, List<RunResult> rows, Map<Integer, String> scenarioNames,
			Map<Integer, Double> ideal) {
		StringBuilder md = new StringBuilder();
		header.forEach((line) -> md.append(line).append('\n'));
		md.append("\n| # | scenario | contender | records/s | start ms | p50 ms | p99 ms | peak heap MiB | "
				+ "retained MiB | backlog max | processed | note |\n");
		md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
		for (RunResult r : rows) {
			md.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
					r.scenario(), scenarioNames.getOrDefault(r.scenario(), ""), r.contender(),
					number(r.throughput(), "%,.0f"), number(r.startMillis(), "%,.0f"), number(r.p50Millis(), "%,.1f"),
					number(r.p99Millis(), "%,.1f"), number(r.peakHeapMb(), "%,.0f"),
					number(r.retainedHeapMb(), "%,.1f"), (r.backlogMax() < 0) ? "" : String.format("%,d", r.backlogMax()),
					processed(r), r.note()));
		}
		md.append("\nRatios (medians):\n\n");
		Ratios.lines(rows, ideal).forEach((line) -> md.append("* ").append(line).append('\n'));
		return md.toString();
	}

	private static String processed(RunResult r) {
		String text = String.format("%,d/%,d", r.processed(), r.records());
		return (r.duplicates() > 0) ? text + " (+" + r.duplicates() + " dup)" : text;
	}

	private static String number(double value, String format) {
		return (Double.isNaN(value) || Double.isInfinite(value)) ? "" : String.format(Locale.ROOT, format, value);
	}

}

package io.batchconsumer.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.batchconsumer.benchmarks.RunResult;

/**
 * A hand-written SVG: one panel per scenario, one horizontal bar per contender, each panel scaled
 * to its own largest value (records/s; retained heap in MiB for the memory scenario). Ours is
 * drawn in a different colour.
 */
final class SvgChart {

	private static final int WIDTH = 900;

	private static final int LABEL = 290;

	private static final int BAR = 18;

	private static final int GAP = 6;

	private SvgChart() {
	}

	static String render(List<RunResult> rows, Map<Integer, String> scenarioNames) {
		Map<Integer, List<RunResult>> panels = new LinkedHashMap<>();
		rows.forEach((row) -> panels.computeIfAbsent(row.scenario(), (k) -> new ArrayList<>()).add(row));
		StringBuilder body = new StringBuilder();
		int y = 30;
		for (Map.Entry<Integer, List<RunResult>> panel : panels.entrySet()) {
			boolean memory = panel.getKey() == 5;
			String unit = memory ? "retained heap while blocked, MiB" : "records/s (median)";
			body.append(text(10, y, "bold", panel.getKey() + ". "
					+ scenarioNames.getOrDefault(panel.getKey(), "") + " — " + unit));
			y += 10;
			double max = panel.getValue().stream().mapToDouble((r) -> value(r, memory)).filter(Double::isFinite)
				.max().orElse(1);
			for (RunResult row : panel.getValue()) {
				double value = value(row, memory);
				int length = (max > 0 && Double.isFinite(value)) ? (int) Math.round(value / max * (WIDTH - LABEL - 110))
						: 0;
				String colour = row.contender().startsWith("batch-consumer") ? "#d9534f" : "#5b7fa6";
				body.append(text(LABEL - 8, y + 13, "end", row.contender()));
				body.append(String.format(Locale.ROOT,
						"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n", LABEL, y, length, BAR,
						colour));
				body.append(text(LABEL + length + 6, y + 13, "", Double.isFinite(value)
						? String.format(Locale.ROOT, memory ? "%,.1f" : "%,.0f", value) : "n/a"));
				y += BAR + GAP;
			}
			y += 24;
		}
		return String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
				+ "font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
				WIDTH, y) + body + "</svg>\n";
	}

	private static double value(RunResult row, boolean memory) {
		return memory ? row.retainedHeapMb() : row.throughput();
	}

	private static String text(int x, int y, String style, String content) {
		String attributes = switch (style) {
			case "bold" -> " font-weight=\"bold\"";
			case "end" -> " text-anchor=\"end\"";
			default -> "";
		};
		return String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\"%s>%s</text>%n", x, y, attributes, escape(content));
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

}

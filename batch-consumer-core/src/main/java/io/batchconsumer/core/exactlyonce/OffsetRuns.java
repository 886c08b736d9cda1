package io.batchconsumer.core.exactlyonce;

import java.util.ArrayList;
import java.util.List;

/**
 * The offsets of one completion row as text: runs of consecutive offsets relative to the row's
 * first offset, comma-separated ({@code 0-49} for a contiguous slice of 50, {@code 0,3,7-9} for a
 * slice of keys that interleave with others). A slice is cut into several rows when its text would
 * pass {@link #MAX_LENGTH} characters.
 *
 * <p>Threading: stateless.
 */
final class OffsetRuns {

	/** The width of the {@code offsets} column. */
	static final int MAX_LENGTH = 4000;

	private OffsetRuns() {
	}

	/**
	 * One row's worth of offsets.
	 * @param first the least offset, the row's key
	 * @param last the greatest offset
	 * @param count how many offsets
	 * @param text the runs relative to {@code first}
	 */
	record Row(long first, long last, int count, String text) {
	}

	/**
	 * Cuts sorted, distinct offsets into rows.
	 * @param offsets the offsets, ascending, without repeats
	 * @return the rows, in offset order
	 */
	static List<Row> rows(List<Long> offsets) {
		List<Row> rows = new ArrayList<>();
		int from = 0;
		while (from < offsets.size()) {
			long first = offsets.get(from);
			StringBuilder text = new StringBuilder();
			int next = from;
			while (next < offsets.size()) {
				int end = next;
				while (end + 1 < offsets.size() && offsets.get(end + 1) == offsets.get(end) + 1) {
					end++;
				}
				String run = (offsets.get(next) - first) + ((end > next) ? "-" + (offsets.get(end) - first) : "");
				if (text.length() > 0 && text.length() + 1 + run.length() > MAX_LENGTH) {
					break;
				}
				text.append((text.length() > 0) ? "," : "").append(run);
				next = end + 1;
			}
			rows.add(new Row(first, offsets.get(next - 1), next - from, text.toString()));
			from = next;
		}
		return rows;
	}

	/**
	 * Reads the offsets of one row.
	 * @param first the row's first offset
	 * @param text its runs
	 * @param from the least offset wanted
	 * @param into where to add the offsets at or above {@code from}
	 */
	static void read(long first, String text, long from, List<Long> into) {
		for (String run : text.split(",")) {
			int dash = run.indexOf('-');
			long start = first + Long.parseLong((dash < 0) ? run : run.substring(0, dash));
			long end = first + ((dash < 0) ? start - first : Long.parseLong(run.substring(dash + 1)));
			for (long offset = Math.max(start, from); offset <= end; offset++) {
				into.add(offset);
			}
		}
	}

}

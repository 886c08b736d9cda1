package io.batchconsumer.benchmarks.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the whole machine was between two readings of {@code /proc/stat} (Linux): the cores in
 * use by every process, this one and others, out of the cores there are. A run whose machine was
 * busy on every core was bounded by the machine, not by the consumer.
 *
 * <p>Threading: stateless; any thread.
 */
final class MachineCpu {

	private MachineCpu() {
	}

	/**
	 * The machine's busy and total clock ticks so far.
	 * @return {busy, total}, or {@code null} where {@code /proc/stat} cannot be read
	 */
	static long[] read() {
		try {
			String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
			long total = 0;
			for (int i = 1; i < fields.length; i++) {
				total += Long.parseLong(fields[i]);
			}
			long idle = Long.parseLong(fields[4]) + ((fields.length > 5) ? Long.parseLong(fields[5]) : 0);
			return new long[] { total - idle, total };
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * The machine's busy cores between two readings.
	 * @param before the first reading
	 * @param after the second reading
	 * @return e.g. {@code "1.98 of 2 cores busy"}
	 */
	static String busy(long[] before, long[] after) {
		if (before == null || after == null || after[1] == before[1]) {
			return "busy unknown";
		}
		int cores = Runtime.getRuntime().availableProcessors();
		double share = (after[0] - before[0]) / (double) (after[1] - before[1]);
		return String.format("%.2f of %d cores busy", share * cores, cores);
	}

}

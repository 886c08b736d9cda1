package io.batchconsumer.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/**
 * The CPU time the live threads of one contender used, by thread-name prefix: a figure that a
 * loaded, shared machine disturbs far less than records per second (a thread waiting for a core is
 * not charged), so a change of the owner thread's cost shows even when the wall clock is noise.
 *
 * <p>Threading: stateless; any thread.
 */
public final class ThreadCpu {

	private ThreadCpu() {
	}

	/**
	 * Sums the CPU time of the live threads whose name starts with the prefix and ends with the
	 * suffix.
	 * @param prefix the start of the names
	 * @param suffix the end of the names, {@code ""} for any
	 * @return nanoseconds
	 */
	public static long nanos(String prefix, String suffix) {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long total = 0;
		for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
			if (info != null && info.getThreadName().startsWith(prefix) && info.getThreadName().endsWith(suffix)) {
				long cpu = threads.getThreadCpuTime(info.getThreadId());
				total += Math.max(0, cpu);
			}
		}
		return total;
	}

	/**
	 * The note part for a run: CPU microseconds per record.
	 * @param label what the threads are
	 * @param nanos their CPU time
	 * @param records the records of the run
	 * @return e.g. {@code "owner CPU 1.52 µs/record"}
	 */
	public static String perRecord(String label, long nanos, long records) {
		return String.format("%s CPU %.2f us/record", label, nanos / 1e3 / Math.max(1, records));
	}

}

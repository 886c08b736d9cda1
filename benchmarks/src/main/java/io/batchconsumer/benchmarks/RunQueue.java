package io.batchconsumer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How long one thread was ready to run but waited for a core, from Linux's
 * {@code /proc/self/task/<tid>/schedstat} (its second field, the time spent on a run queue): on
 * 2 cores shared with the broker, what a consuming thread loses to the other threads, which its CPU
 * time does not show (docs/benchmarks.md, "Idle commits").
 *
 * <p>Threading: stateless; {@link #currentThread()} on the thread to measure, the rest on any.
 */
public final class RunQueue {

	private RunQueue() {
	}

	/**
	 * The calling thread's id in the kernel.
	 * @return the id, {@code null} where {@code /proc/thread-self} does not exist
	 */
	public static String currentThread() {
		try {
			return Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
		}
		catch (IOException | UnsupportedOperationException ex) {
			return null;
		}
	}

	/**
	 * The time a thread of this process has waited on a run queue so far.
	 * @param thread its id ({@link #currentThread()}), {@code null} when unknown
	 * @return nanoseconds, -1 when unknown or the thread ended
	 */
	public static long waitedNanos(String thread) {
		if (thread == null) {
			return -1;
		}
		try {
			return parse(Files.readString(Path.of("/proc/self/task", thread, "schedstat")));
		}
		catch (IOException ex) {
			return -1;
		}
	}

	/**
	 * The run-queue time in a {@code schedstat} line: {@code <on CPU ns> <waiting ns> <time slices>}.
	 * @param schedstat the line
	 * @return nanoseconds, -1 when the line is not one
	 */
	static long parse(String schedstat) {
		String[] fields = schedstat.trim().split(" ");
		try {
			return (fields.length == 3) ? Long.parseLong(fields[1]) : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/**
	 * The note part for a thread over its life.
	 * @param label what the thread is
	 * @param thread its id
	 * @param records the records of the run
	 * @return e.g. {@code "; owner waited for a core 0.03 us/record"}, or {@code ""} when not known
	 */
	public static String note(String label, String thread, long records) {
		long nanos = waitedNanos(thread);
		return (nanos < 0) ? ""
				: String.format("; %s waited for a core %.2f us/record", label, nanos / 1e3 / Math.max(1, records));
	}

}

package io.batchconsumer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's name and CPU time as Linux's {@code /proc/<pid>/stat} gives them: the time of the
 * process itself (user plus system) and what its reaped children left to it, each counted in clock
 * ticks of 10 ms. Read for another process on this machine than the JVM's own: the broker
 * ({@link ThreadCpu#brokerNanos()}), the PostgreSQL backends.
 *
 * @param name the command name, without its parentheses
 * @param ownNanos user plus system time of the process
 * @param childrenNanos user plus system time its reaped children left to it
 */
public record ProcessTimes(String name, long ownNanos, long childrenNanos) {

	/** Linux's clock tick for {@code /proc} times (USER_HZ, {@code getconf CLK_TCK}): 100 per second. */
	private static final long NANOS_PER_TICK = 10_000_000L;

	/**
	 * Reads a process's times.
	 * @param stat its {@code /proc/<pid>/stat}
	 * @return the times, {@code null} when the process is gone or the file cannot be read
	 */
	public static ProcessTimes read(Path stat) {
		String text;
		try {
			text = Files.readString(stat);
		}
		catch (IOException ex) {
			return null;
		}
		int open = text.indexOf('(');
		int close = text.lastIndexOf(')');
		if (open < 0 || close < open) {
			return null;
		}
		// After the name: state is field 3; utime, stime, cutime, cstime are fields 14 to 17.
		String[] fields = text.substring(close + 2).split(" ");
		try {
			return new ProcessTimes(text.substring(open + 1, close),
					ticks(fields, 14) + ticks(fields, 15), ticks(fields, 16) + ticks(fields, 17));
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static long ticks(String[] fieldsAfterName, int field) {
		return Long.parseLong(fieldsAfterName[field - 3]) * NANOS_PER_TICK;
	}

}

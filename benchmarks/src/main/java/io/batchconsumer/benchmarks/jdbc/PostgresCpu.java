package io.batchconsumer.benchmarks.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The CPU time of the machine's PostgreSQL processes, from {@code /proc}: the live ones' own time
 * and what their exited children left to them. The benchmarks' embedded server is the only
 * PostgreSQL on a benchmark machine, so its backends are all of them.
 *
 * <p>Threading: stateless; any thread.
 */
final class PostgresCpu {

	/** Clock ticks per second of {@code /proc/<pid>/stat} ({@code getconf CLK_TCK} on Linux). */
	private static final long TICKS_PER_SECOND = 100;

	private PostgresCpu() {
	}

	/**
	 * Sums user and system time of every process named {@code postgres}, with their reaped children's.
	 * @return nanoseconds, -1 without {@code /proc}
	 */
	static long nanos() {
		Path proc = Path.of("/proc");
		if (!Files.isDirectory(proc)) {
			return -1;
		}
		long ticks = 0;
		try (Stream<Path> processes = Files.list(proc)) {
			for (Path process : (Iterable<Path>) processes::iterator) {
				if (process.getFileName().toString().chars().allMatch(Character::isDigit)) {
					ticks += postgresTicks(process.resolve("stat"));
				}
			}
		}
		catch (IOException ex) {
			return -1;
		}
		return ticks * (1_000_000_000L / TICKS_PER_SECOND);
	}

	/** utime + stime + cutime + cstime of a process named postgres; 0 for others or one gone meanwhile. */
	private static long postgresTicks(Path stat) {
		String text;
		try {
			text = Files.readString(stat);
		}
		catch (IOException ex) {
			return 0;
		}
		int open = text.indexOf('(');
		int close = text.lastIndexOf(')');
		if (open < 0 || close < open || !text.substring(open + 1, close).equals("postgres")) {
			return 0;
		}
		// After the name: state is field 3; utime, stime, cutime, cstime are fields 14 to 17.
		String[] fields = text.substring(close + 2).split(" ");
		long ticks = 0;
		for (int field = 14; field <= 17; field++) {
			ticks += Long.parseLong(fields[field - 3]);
		}
		return ticks;
	}

}

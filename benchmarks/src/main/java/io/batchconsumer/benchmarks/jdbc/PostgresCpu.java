package io.batchconsumer.benchmarks.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import io.batchconsumer.benchmarks.ProcessTimes;

/**
 * The CPU time of the machine's PostgreSQL processes, from {@code /proc}: the live ones' own time
 * and what their exited children left to them. The benchmarks' embedded server is the only
 * PostgreSQL on a benchmark machine, so its backends are all of them.
 *
 * <p>Threading: stateless; any thread.
 */
public final class PostgresCpu {

	private PostgresCpu() {
	}

	/**
	 * Sums user and system time of every process named {@code postgres}, with their reaped children's.
	 * @return nanoseconds, -1 without {@code /proc}
	 */
	public static long nanos() {
		Path proc = Path.of("/proc");
		if (!Files.isDirectory(proc)) {
			return -1;
		}
		long nanos = 0;
		try (Stream<Path> processes = Files.list(proc)) {
			for (Path process : (Iterable<Path>) processes::iterator) {
				if (process.getFileName().toString().chars().allMatch(Character::isDigit)) {
					ProcessTimes times = ProcessTimes.read(process.resolve("stat"));
					if (times != null && times.name().equals("postgres")) {
						nanos += times.ownNanos() + times.childrenNanos();
					}
				}
			}
		}
		catch (IOException ex) {
			return -1;
		}
		return nanos;
	}

}

package io.batchconsumer.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;

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
	 * The CPU time of the whole process so far: the broker, the clients, the collector and the
	 * compiler with the contender.
	 * @return nanoseconds, -1 when the platform does not say
	 */
	public static long processNanos() {
		return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
				? os.getProcessCpuTime() : -1;
	}

	/**
	 * The note part for the process over a run: CPU microseconds per record and the cores it kept
	 * busy on average, which shows whether the machine was the limit.
	 * @param nanos the process's CPU time over the run, negative when the platform does not say
	 * @param wallNanos the run's length
	 * @param records the records of the run
	 * @return e.g. {@code "process CPU 0.66 us/record, 1.97 cores"}
	 */
	public static String process(long nanos, long wallNanos, long records) {
		if (nanos < 0) {
			return "process CPU unknown";
		}
		return String.format("process CPU %.2f us/record, %.2f cores", nanos / 1e3 / Math.max(1, records),
				nanos / (double) Math.max(1, wallNanos));
	}

	/**
	 * The CPU time so far of the broker when it runs in a process of its own on this machine, whose
	 * pid {@code separate-jvms.py} passes as {@code bench.broker.pid}: read from
	 * {@code /proc/<pid>/stat} ({@link ProcessTimes}).
	 * @return nanoseconds, -1 when there is no such process or it cannot be read
	 */
	public static long brokerNanos() {
		String pid = System.getProperty("bench.broker.pid");
		if (pid == null) {
			return -1;
		}
		ProcessTimes times = ProcessTimes.read(Path.of("/proc", pid, "stat"));
		return (times != null) ? times.ownNanos() : -1;
	}

	/**
	 * The note part for the broker's process over a run, to append to another.
	 * @param nanosAtStart {@link #brokerNanos()} at the run's start
	 * @param records the records of the run
	 * @return e.g. {@code "; broker CPU 0.15 us/record"}, or {@code ""} when not known
	 */
	public static String broker(long nanosAtStart, long records) {
		long now = brokerNanos();
		return (nanosAtStart < 0 || now < 0) ? "" : "; " + perRecord("broker", now - nanosAtStart, records);
	}

	/**
	 * The JIT compilers' accumulated time so far, as the JVM reports it: a run that still compiles
	 * much was measured before the JVM settled, and on 2 cores the compiler takes a core from the
	 * contender (a build with more code settles later: docs/benchmarks.md, "What is left at zero work").
	 * @return milliseconds, -1 when the JVM does not say
	 */
	public static long compilerMillis() {
		CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
		return (compiler != null && compiler.isCompilationTimeMonitoringSupported()) ? compiler.getTotalCompilationTime()
				: -1;
	}

	/**
	 * The note part for the JIT compilers over a run.
	 * @param millisAtStart {@link #compilerMillis()} at the run's start
	 * @return e.g. {@code "JIT 412 ms"}, or {@code "JIT unknown"}
	 */
	public static String compiler(long millisAtStart) {
		long now = compilerMillis();
		return (millisAtStart < 0 || now < 0) ? "JIT unknown" : String.format("JIT %d ms", now - millisAtStart);
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

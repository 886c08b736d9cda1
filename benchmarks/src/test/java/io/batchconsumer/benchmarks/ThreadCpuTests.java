package io.batchconsumer.benchmarks;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker's CPU time is read from {@code /proc/<pid>/stat} ({@link ProcessTimes}) by the pid the
 * script passes: read for this very process, it agrees with what the JVM says of its own CPU time,
 * and the command name is read without its parentheses.
 */
class ThreadCpuTests {

	@AfterEach
	void clear() {
		System.clearProperty("bench.broker.pid");
	}

	@Test
	void aProcessReadByItsPidSpendsWhatTheJvmSaysItSpends() {
		assertThat(ThreadCpu.brokerNanos()).as("no pid given").isEqualTo(-1);
		System.setProperty("bench.broker.pid", Long.toString(ProcessHandle.current().pid()));
		long before = ThreadCpu.processNanos();
		long read = ThreadCpu.brokerNanos();
		long after = ThreadCpu.processNanos();
		// /proc counts in ticks of 10 ms, truncated: a few ticks apart at most.
		assertThat(read).isBetween(before - 50_000_000L, after + 10_000_000L);
		assertThat(read).isPositive();
		ProcessTimes own = ProcessTimes.read(java.nio.file.Path.of("/proc/self/stat"));
		assertThat(own.name()).as("the command name, as PostgresCpu matches it").isEqualTo("java");
		assertThat(own.childrenNanos()).isNotNegative();
		System.setProperty("bench.broker.pid", "999999999");
		assertThat(ThreadCpu.brokerNanos()).as("no such process").isEqualTo(-1);
	}

}

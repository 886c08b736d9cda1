package io.batchconsumer.benchmarks;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run-queue reader reads the second field of {@code schedstat}, of the thread it was given.
 */
class RunQueueTests {

	@Test
	void theWaitIsTheSecondFieldOfSchedstat() {
		assertThat(RunQueue.parse("2887651 888336 3\n")).isEqualTo(888336);
		assertThat(RunQueue.parse("not a schedstat")).isEqualTo(-1);
		assertThat(RunQueue.parse("1 x 3")).isEqualTo(-1);
	}

	@Test
	void anotherThreadsIdReadsThatThreadsWaitAndAnEndedThreadsReadsNone() throws InterruptedException {
		String self = RunQueue.currentThread();
		assertThat(self).isNotNull().matches("[0-9]+");
		AtomicReference<String> other = new AtomicReference<>();
		Thread thread = new Thread(() -> other.set(RunQueue.currentThread()));
		thread.start();
		thread.join();
		assertThat(other.get()).isNotNull().isNotEqualTo(self);
		assertThat(RunQueue.waitedNanos(self)).isGreaterThanOrEqualTo(0);
		assertThat(RunQueue.waitedNanos(other.get())).isEqualTo(-1);
		assertThat(RunQueue.note("owner", null, 10)).isEmpty();
		assertThat(RunQueue.note("owner", self, 1_000_000_000L)).matches("; owner waited for a core [0-9.]+ us/record");
	}

}

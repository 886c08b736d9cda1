package io.batchconsumer.benchmarks;

import java.util.concurrent.CountDownLatch;
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
	void anotherLiveThreadsIdReadsThatThreadsWaitAndAnIdOfNoThreadReadsNone() throws InterruptedException {
		String self = RunQueue.currentThread();
		assertThat(self).isNotNull().matches("[0-9]+");
		AtomicReference<String> other = new AtomicReference<>();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		Thread thread = new Thread(() -> {
			other.set(RunQueue.currentThread());
			started.countDown();
			try {
				done.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		thread.start();
		try {
			started.await();
			// Read while it is alive: once joined, the kernel may still list it for a moment.
			assertThat(other.get()).isNotNull().isNotEqualTo(self);
			assertThat(RunQueue.waitedNanos(other.get())).isGreaterThanOrEqualTo(0);
		}
		finally {
			done.countDown();
			thread.join();
		}
		assertThat(RunQueue.waitedNanos(self)).isGreaterThanOrEqualTo(0);
		assertThat(RunQueue.waitedNanos("999999999")).as("no such thread").isEqualTo(-1);
		assertThat(RunQueue.note("owner", null, 10)).isEmpty();
		assertThat(RunQueue.note("owner", self, 1_000_000_000L)).matches("; owner waited for a core [0-9.]+ us/record");
	}

}

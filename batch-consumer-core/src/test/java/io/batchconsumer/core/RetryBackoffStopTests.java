package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.testing.ContainerFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker that waits out a retry's back-off ends that wait at once when its container stops or
 * its partition's epoch ends (revoke, loss, seek), without an interrupt (H2 closes its database on
 * one): a stop never waits for a back-off, and no worker thread outlives it.
 */
class RetryBackoffStopTests {

	private final ContainerFixture fixture = new ContainerFixture(1, 5);

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	void aStopEndsARetryBackoffAtOnceAndLeavesNoThread() throws Exception {
		CountDownLatch failed = new CountDownLatch(1);
		BatchContainer container = this.fixture.start(
				(options) -> options.retryBackoff(Duration.ofSeconds(8)).retryMaxBackoff(Duration.ofSeconds(10)),
				(SliceListener) (messages) -> {
					failed.countDown();
					throw new IllegalStateException("always fails");
				});
		assertThat(failed.await(10, TimeUnit.SECONDS)).isTrue();
		long start = System.nanoTime();
		assertThat(container.stop()).isTrue();
		// Half the back-off: a stop that waited for it would take the other half at least.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
		await().atMost(Duration.ofSeconds(4)).until(() -> containerThreads().isEmpty());
	}

	@Test
	void aRevokeEndsARetryBackoffAtOnce() throws Exception {
		CountDownLatch failed = new CountDownLatch(1);
		this.fixture.start(
				(options) -> options.retryBackoff(Duration.ofSeconds(8)).retryMaxBackoff(Duration.ofSeconds(10)),
				(SliceListener) (messages) -> {
					failed.countDown();
					throw new IllegalStateException("always fails");
				});
		assertThat(failed.await(10, TimeUnit.SECONDS)).isTrue();
		// The source forgets the partition only after the engine's revoke (drain and commit) returned.
		this.fixture.source().requestRevoke(this.fixture.broker.partitions(ContainerFixture.TOPIC));
		await().atMost(Duration.ofSeconds(4)).until(() -> this.fixture.source().assignment().isEmpty());
	}

	private static List<String> containerThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith("batch-consumer-test-"))
			.toList();
	}

}

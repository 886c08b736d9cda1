package io.batchconsumer.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.testing.ContainerFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A runtime shrink of {@code thread-size} while every worker is busy and as many slices again wait
 * in the pool's queue: the slices that run still finish on their own (workers are never
 * interrupted), and none of the queued ones starts until the running ones are down to the new size.
 */
class ThreadSizeShrinkTests {

	private ContainerFixture fixture;

	@AfterEach
	void close() {
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	@Test
	void afterAShrinkNoQueuedSliceStartsWhileTheRunningOnesAreAboveTheNewSize() throws Exception {
		this.fixture = new ContainerFixture(4, 100);
		CountDownLatch gate = new CountDownLatch(1);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostRunningAtAStartAfterTheShrink = new AtomicInteger();
		AtomicInteger startsAfterTheShrink = new AtomicInteger();
		CountDownLatch shrunk = new CountDownLatch(1);
		BatchContainer container = this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).threadSize(8)
			.consumerBatchSize(1), (slice) -> {
				int now = running.incrementAndGet();
				try {
					if (shrunk.getCount() == 0) {
						startsAfterTheShrink.incrementAndGet();
						mostRunningAtAStartAfterTheShrink.accumulateAndGet(now, Math::max);
					}
					gate.await(30, TimeUnit.SECONDS);
					return BatchResult.success();
				}
				finally {
					running.decrementAndGet();
				}
			});
		// Eight running; the dispatcher hands out up to eight more, which wait in the pool's queue.
		await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 8);
		container.tune(Map.of("thread-size", 2)).get(10, TimeUnit.SECONDS);
		shrunk.countDown();
		gate.countDown();
		await().atMost(Duration.ofSeconds(20)).until(this.fixture::isFullyCommitted);
		assertThat(startsAfterTheShrink.get()).isPositive();
		assertThat(mostRunningAtAStartAfterTheShrink.get()).isLessThanOrEqualTo(2);
		assertThat(container.stop()).isTrue();
	}

}

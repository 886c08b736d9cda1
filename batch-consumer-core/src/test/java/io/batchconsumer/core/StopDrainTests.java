package io.batchconsumer.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.testing.ContainerFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a graceful stop leaves to the next owner of a partition: nothing its listener processed. A
 * slice waiting in the pool's queue is taken back when the stop begins and leaves its thread batch
 * open, so the final commit goes to the lowest unfinished offset of that batch rather than to the
 * batch's start: at the batch's start, the next owner would process the batch's finished slices again.
 */
class StopDrainTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final CountDownLatch release = new CountDownLatch(1);

	private ContainerFixture fixture;

	@AfterEach
	void close() {
		this.release.countDown();
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	@Test
	void theNextOwnerAfterAStopGetsNoFinishedSliceOfAnOpenBatchAgain() throws Exception {
		this.fixture = new ContainerFixture(1, 40);
		Map<Long, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		CountDownLatch blocked = new CountDownLatch(2);
		// Two workers: batch 1 is offsets 0-9 and 10-19, batch 2 is 20-29 and 30-39. The first slice of
		// each batch blocks, so at the stop 0-9 and 20-29 run, 10-19 finished and 30-39 waits in the queue.
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED)
			.threadSize(2)
			.consumerBatchSize(10)
			.pullBatchSize(40)
			.commitInterval(Duration.ofHours(1)), (slice) -> {
				long first = slice.get(0).offset();
				if (first == 0 || first == 20) {
					blocked.countDown();
					this.release.await();
				}
				slice.forEach((m) -> deliveries.computeIfAbsent(m.offset(), (k) -> new AtomicInteger()).incrementAndGet());
				return BatchResult.success();
			});
		await().atMost(WAIT).until(() -> blocked.getCount() == 0 && deliveries.size() == 10);
		Thread stopper = new Thread(() -> this.fixture.container().stop(), "stopper");
		stopper.start();
		await().atMost(WAIT).until(() -> this.fixture.container().stats().state() == LifecyclePhase.STOPPING);
		this.release.countDown();
		stopper.join(WAIT.toMillis());

		assertThat(this.fixture.committed(0)).as("committed position after the stop: the queued 30-39 are not done")
			.isEqualTo(30);

		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).commitInterval(Duration.ZERO), (slice) -> {
			slice.forEach((m) -> deliveries.computeIfAbsent(m.offset(), (k) -> new AtomicInteger()).incrementAndGet());
			return BatchResult.success();
		});
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 40);
		assertThat(deliveries).as("messages processed").hasSize(40);
		assertThat(deliveries.values()).as("deliveries per message").allMatch((count) -> count.get() == 1);
	}

}

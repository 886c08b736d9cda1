package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchSnapshot.SliceState;
import io.batchconsumer.core.testing.ContainerFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the published {@link PartitionSnapshot} tell of open batches and flow control: the batch that
 * holds the watermark, the state of each of its slices, and why fetching stopped.
 */
class SnapshotDetailsTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final CountDownLatch release = new CountDownLatch(1);

	private ContainerFixture fixture;

	@AfterEach
	void stop() {
		this.release.countDown();
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	@Test
	void theBatchHoldingTheWatermarkShowsItsBlockedSliceInFlightAndTheOthersDone() {
		this.fixture = new ContainerFixture(1, 200);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).threadSize(4).consumerBatchSize(5).pullBatchSize(20)
			.maxSpan(50), (slice) -> {
				if (slice.stream().anyMatch((m) -> m.offset() == 7)) {
					this.release.await();
				}
				return BatchResult.success();
			});
		await().atMost(WAIT).untilAsserted(() -> {
			PartitionSnapshot stats = this.fixture.stats(0);
			assertThat(stats).isNotNull();
			assertThat(stats.batches()).isNotEmpty();
			BatchSnapshot holder = stats.batches().get(0);
			assertThat(holder.firstOffset()).isLessThanOrEqualTo(7);
			assertThat(holder.lastOffset()).isGreaterThanOrEqualTo(7);
			assertThat(holder.slices()).extracting(BatchSnapshot.SliceSnapshot::state).contains(SliceState.IN_FLIGHT);
			assertThat(holder.slices()).filteredOn((s) -> s.state() == SliceState.IN_FLIGHT).hasSize(1);
			assertThat(holder.slices()).filteredOn((s) -> s.state() == SliceState.DONE).hasSize(holder.slices().size() - 1);
			assertThat(stats.openBatches()).isGreaterThan(1);
			assertThat(stats.pausedByFlowControl()).isTrue();
			assertThat(stats.flowControlReason()).isEqualTo("span");
		});
		this.release.countDown();
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 200);
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.fixture.stats(0)).isNotNull();
			assertThat(this.fixture.stats(0).batches()).isEmpty();
			assertThat(this.fixture.stats(0).flowControlReason()).isNull();
		});
	}

	@Test
	void aFailedSliceIsRetryingAndASliceBehindItsKeyIsWaitingForTheKey() {
		this.fixture = new ContainerFixture(1, 14);
		this.fixture.start((o) -> o.ordering(Ordering.KEY).threadSize(2).consumerBatchSize(7).pullBatchSize(7)
			.retryMaxAttempts(3).retryBackoff(Duration.ofSeconds(30)).retryMaxBackoff(Duration.ofSeconds(30)), (slice) -> {
				if (slice.stream().anyMatch((m) -> m.offset() == 0)) {
					return BatchResult.failed(List.of(slice.get(0)), new IllegalStateException("poison"));
				}
				return BatchResult.success();
			});
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.fixture.stats(0)).isNotNull();
			List<BatchSnapshot> batches = this.fixture.stats(0).batches();
			assertThat(batches).isNotEmpty();
			assertThat(batches.get(0).slices()).anySatisfy((slice) -> {
				assertThat(slice.state()).isEqualTo(SliceState.RETRYING);
				assertThat(slice.attempts()).isEqualTo(1);
			});
			assertThat(batches).flatExtracting(BatchSnapshot::slices)
				.extracting(BatchSnapshot.SliceSnapshot::state)
				.contains(SliceState.WAITING_FOR_KEY);
		});
	}

}

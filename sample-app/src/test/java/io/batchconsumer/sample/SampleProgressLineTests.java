package io.batchconsumer.sample;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The progress line, driven by hand with container snapshots.
 */
class SampleProgressLineTests {

	@Test
	void showsDoneRateWaitingBacklogAndCommitLagPerListener() {
		ProgressLine progress = new ProgressLine(0);
		String line = progress.next(List.of(stats("orders", 2_000, 5, partition(3_000, 2_500, 4_000, 500)),
				stats("audit", 0, 0)), 2_000);
		assertThat(line).isEqualTo("orders: 2,005 done (1,003/s), waiting 1,000, backlog 500, commit lag 500"
				+ " | audit: 0 done (0/s), waiting 0, backlog 0, commit lag 0");
	}

	@Test
	void theRateIsMeasuredSinceThePreviousLine() {
		ProgressLine progress = new ProgressLine(0);
		progress.next(List.of(stats("orders", 1_000, 0, partition(1_000, 0, 5_000, 1_000))), 1_000);
		String line = progress.next(List.of(stats("orders", 4_000, 0, partition(4_000, 3_000, 5_000, 1_000))), 3_000);
		assertThat(line).startsWith("orders: 4,000 done (1,500/s), waiting 1,000");
	}

	@Test
	void staysQuietOnceNothingIsOutstandingAndNothingMoved() {
		ProgressLine progress = new ProgressLine(0);
		assertThat(progress.next(List.of(stats("orders", 100, 0, partition(100, 100, 100, 0))), 1_000))
			.as("the line after the last work still shows it").isNotNull();
		assertThat(progress.next(List.of(stats("orders", 100, 0, partition(100, 100, 100, 0))), 2_000)).isNull();
		assertThat(progress.next(List.of(), 3_000)).isNull();
	}

	@Test
	void aRestartedContainerCountsFromZeroWithoutANegativeRate() {
		ProgressLine progress = new ProgressLine(0);
		progress.next(List.of(stats("orders", 5_000, 0)), 1_000);
		String line = progress.next(List.of(stats("orders", 200, 0, partition(300, 200, 300, 100))), 2_000);
		assertThat(line).startsWith("orders: 200 done (200/s)");
	}

	private static ContainerSnapshot stats(String id, long succeeded, long deadLettered, PartitionSnapshot... partitions) {
		return new ContainerSnapshot(id, LifecyclePhase.RUNNING, List.of(partitions), 10, 0, 0, 0, 0, succeeded, 0,
				deadLettered, 0, 0, 0, 0, null, 0, null, 0, 0, 0, 0, 0, 0, 0, 0);
	}

	private static PartitionSnapshot partition(long fetched, long committed, long end, long backlog) {
		return new PartitionSnapshot(new TopicPartition("orders", 0), 1, fetched, committed, 0, backlog, backlog * 100,
				1, 0, false, false, end);
	}

}

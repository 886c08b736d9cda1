package io.batchconsumer.spring.autoconfigure.health;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health rules of one listener, driven by hand-made snapshots.
 */
class ListenerHealthTests {

	private static final Duration STALL = Duration.ofSeconds(60);

	private static final long NOW = 1_000_000_000L;

	@Test
	void aRunningListenerThatCommitsIsUpWithItsDetails() {
		ListenerHealth health = ListenerHealth.of(stats(LifecyclePhase.RUNNING, NOW - 500, null,
				partition(0, 12, 30_000, false)), STALL, NOW);
		assertThat(health.up()).isTrue();
		assertThat(health.details()).containsEntry("status", "UP")
			.containsEntry("state", "RUNNING")
			.containsEntry("partitions", 1)
			.containsEntry("backlog", 12L)
			.containsEntry("commitLag", 12L)
			.containsEntry("lastCommitProgressAgeMillis", 500L)
			.containsEntry("paused", false)
			.doesNotContainKeys("sourceError", "reason");
	}

	@Test
	void aFailedContainerIsDown() {
		ListenerHealth health = ListenerHealth.of(stats(LifecyclePhase.FAILED, NOW, null), STALL, NOW);
		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("status", "DOWN").containsKey("reason");
	}

	@Test
	void aListenerThatCannotReachItsSourceIsDownAndShowsTheError() {
		ListenerHealth health = ListenerHealth.of(stats(LifecyclePhase.RUNNING, NOW, "SQLException: refused"), STALL,
				NOW);
		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("sourceError", "SQLException: refused")
			.containsEntry("reason", "cannot reach its source");
	}

	@Test
	void aContainerWhoseWorkerMetAVirtualMachineErrorIsDownAndShowsTheError() {
		ContainerSnapshot ok = stats(LifecyclePhase.RUNNING, NOW, null);
		ContainerSnapshot fatal = new ContainerSnapshot(ok.id(), ok.state(), ok.partitions(), ok.threadSize(),
				ok.busyThreads(), 0, 0, 0, 0, 0, 0, 0, 0, 0, ok.lastCommitProgressMillis(), null, NOW,
				"java.lang.OutOfMemoryError: Java heap space", 0, 0, 0, 0, 0, 0, 0, 0);
		ListenerHealth health = ListenerHealth.of(fatal, STALL, NOW);
		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("fatalError", "java.lang.OutOfMemoryError: Java heap space");
		assertThat(health.details().get("reason")).asString().contains("OutOfMemoryError");
	}

	@Test
	void aBacklogWithoutCommitProgressForTheStallTimeoutIsDown() {
		ListenerHealth health = ListenerHealth.of(stats(LifecyclePhase.RUNNING, NOW - 61_000, null,
				partition(0, 40, 61_000, false)), STALL, NOW);
		assertThat(health.up()).isFalse();
		assertThat(health.details().get("reason")).asString().startsWith("stalled: a backlog of 40");
	}

	@Test
	void aBurstAfterAQuietSpellIsNotAStallWhileItsOldestBatchIsYoung() {
		ListenerHealth health = ListenerHealth.of(stats(LifecyclePhase.RUNNING, NOW - 600_000, null,
				partition(0, 40, 200, false)), STALL, NOW);
		assertThat(health.up()).isTrue();
	}

	@Test
	void noBacklogIsNeverAStallHoweverOldTheLastCommit() {
		ListenerHealth health = ListenerHealth.of(stats(LifecyclePhase.RUNNING, NOW - 600_000, null,
				partition(0, 0, 0, false)), STALL, NOW);
		assertThat(health.up()).isTrue();
	}

	@Test
	void aListenerPausedOnPurposeIsUpWithItsBacklog() {
		ListenerHealth health = ListenerHealth.of(stats(LifecyclePhase.PAUSED, NOW - 600_000, null,
				partition(0, 40, 600_000, true)), STALL, NOW);
		assertThat(health.up()).isTrue();
		assertThat(health.details()).containsEntry("paused", true).containsEntry("state", "PAUSED");
	}

	@Test
	void aListenerWhosePartitionsAreAllPausedIsPausedButOneOfTwoIsNot() {
		ListenerHealth all = ListenerHealth.of(stats(LifecyclePhase.RUNNING, NOW - 600_000, null,
				partition(0, 40, 600_000, true), partition(1, 0, 0, true)), STALL, NOW);
		ListenerHealth one = ListenerHealth.of(stats(LifecyclePhase.RUNNING, NOW - 600_000, null,
				partition(0, 40, 600_000, false), partition(1, 0, 0, true)), STALL, NOW);
		assertThat(all.up()).isTrue();
		assertThat(all.details()).containsEntry("paused", true);
		assertThat(one.up()).isFalse();
		assertThat(one.details()).containsEntry("paused", false);
	}

	@Test
	void aContainerNotStartedOrStoppedIsUpAndSaysSo() {
		assertThat(ListenerHealth.of(stats(LifecyclePhase.CREATED, NOW - 600_000, null), STALL, NOW).details())
			.containsEntry("status", "UP")
			.containsEntry("state", "CREATED");
		assertThat(ListenerHealth.of(stats(LifecyclePhase.STOPPED, NOW - 600_000, null), STALL, NOW).details())
			.containsEntry("status", "UP")
			.containsEntry("state", "STOPPED");
	}

	private static ContainerSnapshot stats(LifecyclePhase state, long lastProgress, String sourceError,
			PartitionSnapshot... partitions) {
		return new ContainerSnapshot("orders", state, List.of(partitions), 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, lastProgress,
				sourceError, NOW, null, 0, 0, 0, 0, 0, 0, 0, 0);
	}

	private static PartitionSnapshot partition(int number, long backlog, long oldestBatchAge, boolean pausedByUser) {
		return new PartitionSnapshot(new TopicPartition("orders", number), 1, 100 + backlog, 100, 0, backlog,
				backlog * 10, (backlog > 0) ? 1 : 0, oldestBatchAge, false, pausedByUser, -1);
	}

}

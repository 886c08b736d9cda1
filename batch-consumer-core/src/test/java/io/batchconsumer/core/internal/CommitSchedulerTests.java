package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CommitScheduler} driven step by step, with the time moved by hand and the source polled on
 * the test's thread (as the owner thread does), in the style of Decaton's
 * {@code OutOfOrderCommitControlTest}.
 */
class CommitSchedulerTests {

	private static final Duration INTERVAL = Duration.ofSeconds(1);

	private final ManualTicker ticker = new ManualTicker();

	private final OwnerSteps steps = new OwnerSteps(2);

	private final PublishedState status = new PublishedState("c", 4, this.ticker);

	private final CommitScheduler commits = new CommitScheduler(INTERVAL, this.steps.source, this.status,
			this.ticker.nanoTime());

	@Test
	void commitsTheWatermarkOnceTheIntervalPassed() {
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 10, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(999)));
		assertThat(this.steps.committed(0)).isZero();
		assertThat(this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime()))
			.isEqualTo(Duration.ofMillis(1).toNanos());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(1)));
		assertThat(this.steps.committed(0)).isEqualTo(10);
		assertThat(p0.committedOffset()).isEqualTo(10);
		assertThat(p0.hasUncommittedProgress()).isFalse();
		assertThat(this.status.counters().commitsSucceeded.sum()).isEqualTo(1);
	}

	@Test
	void commitsOnlyPartitionsWhoseWatermarkMoved() {
		this.steps.work(this.steps.partition(1), 3, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(this.steps.committed(1)).isEqualTo(3);
		assertThat(this.steps.partition(0).committedOffset()).isEqualTo(-1);
		assertThat(this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime()))
			.isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void commitsAPartitionTheSourceAwaitsAtOnceAndOnlyThatOne() {
		PartitionState p0 = this.steps.partition(0);
		PartitionState p1 = this.steps.partition(1);
		this.steps.source.awaitCommit(p0.partition, 10);
		this.steps.work(p0, 10, this.ticker.nanoTime());
		this.steps.work(p1, 3, this.ticker.nanoTime());
		assertThat(this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime())).isZero();
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(1)));
		assertThat(this.steps.committed(0)).isEqualTo(10);
		assertThat(p0.committedOffset()).isEqualTo(10);
		assertThat(this.steps.committed(1)).isZero();
		// The interval clock was not reset: the other partition is due when the interval ends.
		assertThat(this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime()))
			.isLessThan(INTERVAL.toNanos());
	}

	@Test
	void aPartitionAwaitedFurtherThanItsWatermarkWaitsForTheInterval() {
		PartitionState p0 = this.steps.partition(0);
		this.steps.source.awaitCommit(p0.partition, 20);
		this.steps.work(p0, 10, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(1)));
		assertThat(this.steps.committed(0)).isZero();
		this.steps.work(p0, 10, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(1)));
		assertThat(this.steps.committed(0)).isEqualTo(20);
	}

	@Test
	void keepsOneAsynchronousCommitInFlightAndSendsTheLatestWatermarkNext() {
		this.steps.source.deferAsyncCommits();
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 5, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(this.commits.isInFlight()).isTrue();
		this.steps.work(p0, 5, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(this.steps.source.mostCommitsInFlight()).isEqualTo(1);
		for (int i = 0; i < 3; i++) {
			this.steps.pollSource();
		}
		assertThat(this.commits.isInFlight()).isFalse();
		assertThat(p0.committedOffset()).isEqualTo(5);
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		for (int i = 0; i < 3; i++) {
			this.steps.pollSource();
		}
		assertThat(this.steps.committed(0)).isEqualTo(10);
	}

	@Test
	void aFailedCommitIsForgottenAndTheNextCarriesTheWatermarkAgain() {
		this.steps.source.holdAsyncCommits();
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 4, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(p0.hasUncommittedProgress()).isFalse();
		this.steps.source.failHeldCommits();
		this.steps.pollSource();
		assertThat(this.status.counters().commitsFailed.sum()).isEqualTo(1);
		assertThat(p0.hasUncommittedProgress()).isTrue();
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(this.steps.committed(0)).isEqualTo(4);
	}

	@Test
	void theFinalCommitDoesNotTrustACommitStillInFlight() {
		this.steps.source.holdAsyncCommits();
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 7, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(this.steps.committed(0)).isZero();
		this.commits.commitFinal(List.of(p0));
		assertThat(this.steps.committed(0)).isEqualTo(7);
		assertThat(p0.committedOffset()).isEqualTo(7);
	}

	@Test
	void aSeekCommitsItsPositionOnTheNewEpoch() {
		PartitionState old = this.steps.partition(0);
		this.steps.work(old, 9, this.ticker.nanoTime());
		PartitionState fresh = this.steps.partitions.assign(old.partition);
		this.commits.commitSeek(fresh, 2);
		assertThat(old.isCancelled()).isTrue();
		assertThat(this.steps.committed(0)).isEqualTo(2);
		assertThat(fresh.committedOffset()).isEqualTo(2);
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(this.steps.committed(0)).isEqualTo(2);
	}

	@Test
	void aCommitThatMovesAPositionIsProgressForTheHealthCheck() {
		long before = this.status.stats().lastCommitProgressMillis();
		this.steps.work(this.steps.partition(0), 1, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		this.status.publish(this.steps.partitions.all(), 0, null, false);
		assertThat(this.status.stats().lastCommitProgressMillis()).isEqualTo(before + INTERVAL.toMillis());
	}

}

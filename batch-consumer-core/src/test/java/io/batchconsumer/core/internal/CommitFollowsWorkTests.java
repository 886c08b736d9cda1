package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule "commits follow the work" of {@link CommitScheduler}, driven by hand: a partition that
 * has nothing fetched, buffered or running while its watermark moved, and is not behind (the source
 * knows of no more messages), is committed an idle linger (1/100 of the interval, at least 5 ms)
 * later, not at the next interval; a partition under load is
 * committed at most once per interval.
 */
class CommitFollowsWorkTests {

	private static final Duration INTERVAL = Duration.ofSeconds(1);

	/** {@link CommitScheduler}'s idle linger at a 1 s interval: 1/100 of it. */
	private static final Duration LINGER = Duration.ofMillis(10);

	private final ManualTicker ticker = new ManualTicker();

	private final OwnerSteps steps = new OwnerSteps(2);

	private final PublishedState status = new PublishedState("c", 4, this.ticker);

	private final CommitScheduler commits = new CommitScheduler(INTERVAL, this.steps.source, this.status,
			this.ticker.nanoTime());

	private final List<TopicPartition> committed = new ArrayList<>();

	CommitFollowsWorkTests() {
		this.steps.broker.onCommit((partition, offset) -> this.committed.add(partition));
	}

	@Test
	void anIdlePartitionIsCommittedAfterTheLingerNotTheInterval() {
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 10, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		assertThat(this.steps.committed(0)).isZero();
		assertThat(this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime()))
			.isEqualTo(LINGER.toNanos());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(LINGER.minusNanos(1)));
		assertThat(this.steps.committed(0)).isZero();
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofNanos(1)));
		assertThat(this.steps.committed(0)).isEqualTo(10);
		assertThat(this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime()))
			.isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void aPartitionThatOnlyWaitsForItsNextFetchIsNotIdle() {
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 10, this.ticker.nanoTime());
		// The broker holds messages past what the source fetched: the partition is behind.
		this.steps.broker.append(OwnerSteps.TOPIC, 0, null, "more");
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		assertThat(this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime()))
			.isEqualTo(INTERVAL.toNanos());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL.minusNanos(1)));
		assertThat(this.steps.committed(0)).isZero();
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofNanos(1)));
		assertThat(this.steps.committed(0)).isEqualTo(10);
	}

	@Test
	void aPartitionIdleSinceItsLastFetchIsCommittedAsSoonAsTheSourceKnowsItCaughtUp() {
		PartitionState p0 = this.steps.partition(0);
		this.steps.broker.append(OwnerSteps.TOPIC, 0, null, "m0");
		this.steps.work(p0, 1, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(LINGER));
		assertThat(this.steps.committed(0)).isZero();
		// The poll reads the message the work above stood for: the source is at the end now.
		this.steps.pollSource();
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		assertThat(this.steps.committed(0)).isEqualTo(1);
	}

	@Test
	void aPartitionWithASliceRunningWaitsForTheInterval() {
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 5, this.ticker.nanoTime());
		this.steps.fetch(p0, 5);
		Slice running = this.steps.start(p0, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(500)));
		assertThat(this.steps.committed(0)).isZero();
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(500)));
		assertThat(this.steps.committed(0)).isEqualTo(5);
		this.steps.finish(running);
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(LINGER));
		assertThat(this.steps.committed(0)).isEqualTo(10);
	}

	@Test
	void aPartitionWithMessagesBufferedIsNotIdle() {
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 5, this.ticker.nanoTime());
		this.steps.fetch(p0, 5);
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(100)));
		assertThat(this.steps.committed(0)).isZero();
	}

	@Test
	void onlyTheIdlePartitionIsCommittedEarly() {
		PartitionState p0 = this.steps.partition(0);
		PartitionState p1 = this.steps.partition(1);
		this.steps.work(p0, 3, this.ticker.nanoTime());
		this.steps.work(p1, 4, this.ticker.nanoTime());
		this.steps.fetch(p1, 1);
		this.steps.start(p1, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(LINGER));
		assertThat(this.steps.committed(0)).isEqualTo(3);
		assertThat(this.steps.committed(1)).isZero();
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(INTERVAL));
		assertThat(this.steps.committed(1)).isEqualTo(4);
	}

	@Test
	void underSteadyLoadCommitsStayMergedToOnePerInterval() {
		PartitionState p0 = this.steps.partition(0);
		// 9.5 seconds of a poll a millisecond, each finished at once: the partition is idle between
		// polls, never for the linger. Due commits at 1 s, 2 s, ... 9 s.
		for (int ms = 0; ms < 9_500; ms++) {
			this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
			this.steps.work(p0, 10, this.ticker.nanoTime());
			this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
			this.commits.nanosUntilDue(this.steps.partitions.all(), this.ticker.nanoTime());
			this.ticker.advance(Duration.ofMillis(1));
		}
		assertThat(this.committed).hasSize(9);
		// The load ends: the last records are committed after the linger, not at 10 s.
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(LINGER));
		assertThat(this.committed).hasSize(10);
		assertThat(this.steps.committed(0)).isEqualTo(95_000);
	}

	@Test
	void theIdleLingerIsAHundredthOfTheIntervalAtLeastFiveMillisecondsAtMostTheInterval() {
		assertThat(CommitScheduler.idleLinger(Duration.ofSeconds(1).toNanos())).isEqualTo(Duration.ofMillis(10).toNanos());
		assertThat(CommitScheduler.idleLinger(Duration.ofMillis(100).toNanos())).isEqualTo(Duration.ofMillis(5).toNanos());
		assertThat(CommitScheduler.idleLinger(Duration.ofMillis(2).toNanos())).isEqualTo(Duration.ofMillis(2).toNanos());
		assertThat(CommitScheduler.idleLinger(0)).isZero();
		assertThat(CommitScheduler.idleLinger(Duration.ofHours(1).toNanos())).isEqualTo(Duration.ofSeconds(36).toNanos());
	}

	@Test
	void burstsSeparatedByQuietEachEndWithOneCommit() {
		PartitionState p0 = this.steps.partition(0);
		for (int burst = 1; burst <= 3; burst++) {
			this.steps.work(p0, 10, this.ticker.nanoTime());
			for (int ms = 0; ms < 50; ms++) {
				this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(Duration.ofMillis(1)));
			}
			assertThat(this.committed).hasSize(burst);
			assertThat(this.steps.committed(0)).isEqualTo(10L * burst);
		}
	}

	@Test
	void anIdleCommitWaitsForTheOneInFlight() {
		this.steps.source.deferAsyncCommits();
		PartitionState p0 = this.steps.partition(0);
		this.steps.work(p0, 2, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(LINGER));
		assertThat(this.commits.isInFlight()).isTrue();
		this.steps.work(p0, 2, this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.advance(LINGER));
		assertThat(this.steps.source.mostCommitsInFlight()).isEqualTo(1);
		for (int i = 0; i < 3; i++) {
			this.steps.pollSource();
		}
		this.commits.commitIfDue(this.steps.partitions.all(), this.ticker.nanoTime());
		for (int i = 0; i < 3; i++) {
			this.steps.pollSource();
		}
		assertThat(this.steps.committed(0)).isEqualTo(4);
	}

}

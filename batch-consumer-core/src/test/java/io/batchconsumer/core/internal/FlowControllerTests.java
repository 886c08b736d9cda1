package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FlowController} driven step by step with the time given by hand: when a partition stops
 * being fetched, why, when it resumes, and when the owner looks at it again.
 */
class FlowControllerTests {

	private final ManualTicker ticker = new ManualTicker();

	private final OwnerSteps steps = new OwnerSteps(1);

	private final Counters counters = new Counters();

	private FlowController flow(int count, long bytes, int span) {
		return new FlowController(options(count, bytes, span).build(), this.counters);
	}

	private static ContainerOptions.Builder options(int count, long bytes, int span) {
		return ContainerOptions.builder("c").topics(OwnerSteps.TOPIC).ordering(Ordering.UNORDERED)
			.pullThresholdForQueue(count).pullThresholdSizeForQueue(bytes).maxSpan(span)
			.suspend(Duration.ofMillis(50));
	}

	/** A flow controller whose only thresholds that can be reached are the container's. */
	private FlowController containerFlow(int count, long bytes) {
		return new FlowController(options(Integer.MAX_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE)
			.pullThresholdForContainer(count).pullThresholdSizeForContainer(bytes).build(), this.counters);
	}

	@Test
	void pausesAboveTheCountThresholdAndResumesOnlyBelowTheLowWaterMark() {
		FlowController flow = flow(100, Long.MAX_VALUE / 2, 1_000_000);
		PartitionState p = this.steps.partition(0);
		this.steps.fetch(p, 100);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.flow().isPaused()).isFalse();
		this.steps.fetch(p, 1);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.flow().isPaused()).isTrue();
		assertThat(this.counters.flowControlCount.sum()).isEqualTo(1);
		assertThat(this.counters.flowControlSize.sum()).isZero();
		// 101 fetched; finishing 20 leaves 81, above the low-water mark of 80: still paused.
		finishFirst(this.steps, p, 20);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.flow().isPaused()).isTrue();
		finishFirst(this.steps, p, 1);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.flow().isPaused()).isFalse();
		assertThat(this.counters.flowControlCount.sum()).isEqualTo(1);
	}

	@Test
	void aPausedPartitionIsNotFetched() {
		FlowController flow = flow(10, Long.MAX_VALUE / 2, 1_000_000);
		PartitionState p = this.steps.partition(0);
		for (int i = 0; i < 30; i++) {
			this.steps.broker.append(OwnerSteps.TOPIC, 0, null, "x" + i);
		}
		List<Message<byte[]>> first = this.steps.source.poll(Duration.ZERO);
		first.forEach(p::add);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.flow().isPaused()).isTrue();
		this.steps.broker.append(OwnerSteps.TOPIC, 0, null, "late");
		assertThat(this.steps.source.poll(Duration.ZERO)).isEmpty();
	}

	@Test
	void countsEveryReasonOfAStop() {
		FlowController flow = flow(5, 10, 3);
		PartitionState p = this.steps.partition(0);
		this.steps.fetch(p, 6);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.flow().isPaused()).isTrue();
		assertThat(this.counters.flowControlCount.sum()).isEqualTo(1);
		assertThat(this.counters.flowControlSize.sum()).isEqualTo(1);
		assertThat(this.counters.flowControlSpan.sum()).isEqualTo(1);
	}

	@Test
	void looksAtAPausedPartitionAgainEverySuspend() {
		FlowController flow = flow(1, Long.MAX_VALUE / 2, 1_000_000);
		PartitionState p = this.steps.partition(0);
		this.steps.fetch(p, 2);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(flow.nanosUntilRecheck(p, this.ticker.nanoTime())).isEqualTo(Duration.ofMillis(50).toNanos());
		assertThat(flow.nanosUntilRecheck(p, this.ticker.advance(Duration.ofMillis(20))))
			.isEqualTo(Duration.ofMillis(30).toNanos());
		assertThat(flow.nanosUntilRecheck(p, this.ticker.advance(Duration.ofMillis(40))))
			.isEqualTo(Duration.ofMillis(40).toNanos());
	}

	@Test
	void anOperatorPauseAndAContainerPauseReachTheSourceOnce() {
		FlowController flow = flow(1000, Long.MAX_VALUE / 2, 1_000_000);
		PartitionState p = this.steps.partition(0);
		p.pauses.pauseByUser(true);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.pauses.sourcePausedChangesTo(true)).isFalse();
		p.pauses.pauseByUser(false);
		flow.apply(this.steps.partitions.all(), true, this.steps.source, this.ticker.nanoTime());
		assertThat(p.pauses.sourcePausedChangesTo(true)).isFalse();
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.pauses.sourcePausedChangesTo(false)).isFalse();
	}

	@Test
	void aContainerOverItsThresholdStopsOnlyThePartitionsAboveTheirShare() {
		OwnerSteps four = new OwnerSteps(4);
		FlowController flow = containerFlow(100, Long.MAX_VALUE / 2);
		PartitionState deep = four.partition(0);
		PartitionState shallow = four.partition(1);
		four.fetch(deep, 90);
		four.fetch(shallow, 10);
		flow.apply(four.partitions.all(), false, four.source, this.ticker.nanoTime());
		assertThat(deep.flow().isPaused()).isFalse();
		// 105 in all, above 100: the share of each of the 4 partitions is 25.
		four.fetch(shallow, 5);
		flow.apply(four.partitions.all(), false, four.source, this.ticker.nanoTime());
		assertThat(deep.flow().isPaused()).isTrue();
		assertThat(deep.flow().reason()).isEqualTo("container-count");
		assertThat(shallow.flow().isPaused()).as("15 is within the share").isFalse();
		assertThat(this.counters.flowControlCount.sum()).isEqualTo(1);
		four.fetch(shallow, 11);
		flow.apply(four.partitions.all(), false, four.source, this.ticker.nanoTime());
		assertThat(shallow.flow().isPaused()).as("26 is above the share").isTrue();
		// 116 in all; each resumes at 80 % of the container's 100 or of its own share of 25.
		finishFirst(four, deep, 35);
		flow.apply(four.partitions.all(), false, four.source, this.ticker.nanoTime());
		assertThat(deep.flow().isPaused()).as("81 in all, 55 in it").isTrue();
		assertThat(shallow.flow().isPaused()).isTrue();
		finishFirst(four, deep, 1);
		flow.apply(four.partitions.all(), false, four.source, this.ticker.nanoTime());
		assertThat(deep.flow().isPaused()).as("80 in all").isFalse();
		assertThat(shallow.flow().isPaused()).isFalse();
		assertThat(this.counters.flowControlCount.sum()).isEqualTo(2);
		assertThat(this.counters.flowControlSize.sum()).isZero();
	}

	@Test
	void aContainerOverItsByteThresholdStopsThePartitionsAboveTheirShareOfBytes() {
		OwnerSteps two = new OwnerSteps(2);
		PartitionState deep = two.partition(0);
		PartitionState empty = two.partition(1);
		two.fetch(deep, 20);
		FlowController flow = containerFlow(Integer.MAX_VALUE, deep.backlogBytes());
		flow.apply(two.partitions.all(), false, two.source, this.ticker.nanoTime());
		assertThat(deep.flow().isPaused()).as("at the threshold, not above").isFalse();
		two.fetch(empty, 1);
		flow.apply(two.partitions.all(), false, two.source, this.ticker.nanoTime());
		assertThat(deep.flow().isPaused()).isTrue();
		assertThat(deep.flow().reason()).isEqualTo("container-size");
		assertThat(empty.flow().isPaused()).isFalse();
		assertThat(this.counters.flowControlSize.sum()).isEqualTo(1);
		assertThat(this.counters.flowControlCount.sum()).isZero();
	}

	@Test
	void aPartitionStoppedByItsOwnCountResumesByItWhileTheContainerIsWithinItsThreshold() {
		OwnerSteps four = new OwnerSteps(4);
		FlowController flow = new FlowController(options(100, Long.MAX_VALUE / 2, Integer.MAX_VALUE)
			.pullThresholdForContainer(200).build(), this.counters);
		PartitionState deep = four.partition(0);
		four.fetch(deep, 101);
		for (int p = 1; p < 4; p++) {
			four.fetch(four.partition(p), 30);
		}
		flow.apply(four.partitions.all(), false, four.source, this.ticker.nanoTime());
		assertThat(deep.flow().reason()).isEqualTo("count");
		// 80 in it, its own low-water mark; 170 in all, above the container's (160) but within its 200.
		finishFirst(four, deep, 21);
		flow.apply(four.partitions.all(), false, four.source, this.ticker.nanoTime());
		assertThat(deep.flow().isPaused()).isFalse();
	}

	/**
	 * Partitions fetched, held and finished at random: after each evaluation a partition is stopped
	 * by the container only while it and the container are above the low-water marks (so no
	 * partition waits for what another holds), and the container holds less than its threshold plus
	 * each partition's share and one poll. A step fetches into one partition or, as a poll of several
	 * partitions does, into every one that fetches.
	 */
	@Test
	void theContainerThresholdBoundsTheBacklogAndStarvesNoPartition() {
		for (long seed = 0; seed < 200; seed++) {
			Random random = new Random(seed);
			int partitionCount = 1 + random.nextInt(8);
			int threshold = 1 + random.nextInt(400);
			int pull = 1 + random.nextInt(60);
			OwnerSteps steps = new OwnerSteps(partitionCount);
			FlowController flow = containerFlow(threshold, Long.MAX_VALUE / 2);
			long share = Math.max(1, threshold / partitionCount);
			for (int step = 0; step < 300; step++) {
				PartitionState p = steps.partition(random.nextInt(partitionCount));
				if (random.nextInt(6) == 0) {
					for (PartitionState each : steps.partitions.all()) {
						if (!each.flow().isPaused()) {
							steps.fetch(each, 1 + random.nextInt(pull));
						}
					}
				}
				else if (random.nextInt(3) > 0 && !p.flow().isPaused()) {
					steps.fetch(p, 1 + random.nextInt(pull));
				}
				else if (p.buffered() > 0) {
					finishFirst(steps, p, 1 + random.nextInt(p.buffered()));
				}
				flow.apply(steps.partitions.all(), false, steps.source, this.ticker.nanoTime());
				long total = steps.partitions.all().stream().mapToLong(PartitionState::backlog).sum();
				String at = "seed " + seed + ", step " + step;
				assertThat(total).as(at).isLessThan(threshold + partitionCount * (share + pull));
				for (PartitionState state : steps.partitions.all()) {
					if (state.flow().isPaused()) {
						assertThat(state.backlog()).as(at).isGreaterThan(FlowController.lowWater(share));
						assertThat(total).as(at).isGreaterThan(FlowController.lowWater(threshold));
					}
				}
			}
		}
	}

	/** Hands out the first {@code count} buffered messages as one slice and finishes it. */
	private void finishFirst(OwnerSteps steps, PartitionState p, int count) {
		List<Message<byte[]>> run = p.take(count);
		Slice slice = p.openBatch(run.get(0).offset(), run.get(run.size() - 1).offset(), List.of(run), count,
				this.ticker.nanoTime())[0];
		p.startSlice();
		steps.finish(slice);
	}

}

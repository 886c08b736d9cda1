package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.List;

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
		ContainerOptions options = ContainerOptions.builder("c").topics(OwnerSteps.TOPIC)
			.ordering(Ordering.UNORDERED).pullThresholdForQueue(count).pullThresholdSizeForQueue(bytes)
			.maxSpan(span).suspend(Duration.ofMillis(50)).build();
		return new FlowController(options, this.counters);
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
		finishFirst(p, 20);
		flow.apply(this.steps.partitions.all(), false, this.steps.source, this.ticker.nanoTime());
		assertThat(p.flow().isPaused()).isTrue();
		finishFirst(p, 1);
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
		flow.evaluate(p, this.ticker.nanoTime());
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
		flow.evaluate(p, this.ticker.nanoTime());
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

	/** Hands out the first {@code count} buffered messages as one slice and finishes it. */
	private void finishFirst(PartitionState p, int count) {
		List<Message<byte[]>> run = p.take(count);
		Slice slice = p.openBatch(run.get(0).offset(), run.get(run.size() - 1).offset(), List.of(run), count,
				this.ticker.nanoTime())[0];
		p.startSlice();
		this.steps.finish(slice);
	}

}

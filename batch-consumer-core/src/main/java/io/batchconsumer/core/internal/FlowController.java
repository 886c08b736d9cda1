package io.batchconsumer.core.internal;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;

/**
 * RocketMQ-style flow control per partition: stop fetching while the backlog (fetched, not
 * finished) is above {@code pull-threshold-for-queue} messages or
 * {@code pull-threshold-size-for-queue} bytes, or, when order is not per partition, while the span
 * from the lowest unfinished to the highest fetched offset is above {@code max-span}. A stopped
 * partition stays stopped for at least {@code suspend}, and resumes only once every measure is
 * below a low-water mark of {@value #LOW_WATER_PERCENT}% so it does not thrash. Each stop adds one
 * to the counter of each reason that caused it.
 *
 * <p>A single message larger than the byte threshold still gets through: the threshold is checked
 * against what is buffered, so an empty partition is always fetched.
 *
 * <p>Threading: owned by the owner thread.
 */
final class FlowController {

	static final int LOW_WATER_PERCENT = 80;

	private final ContainerOptions options;

	private final Counters counters;

	FlowController(ContainerOptions options, Counters counters) {
		this.options = options;
		this.counters = counters;
	}

	/**
	 * Updates {@link PartitionState#flowPaused}.
	 * @param partition the partition
	 * @param nowNanos the time
	 */
	void evaluate(PartitionState partition, long nowNanos) {
		if (!partition.flowPaused) {
			boolean count = partition.backlog > this.options.pullThresholdForQueue();
			boolean size = partition.backlogBytes > this.options.pullThresholdSizeForQueue();
			boolean span = spanCounts() && partition.span() > this.options.maxSpan();
			if (count || size || span) {
				partition.flowPaused = true;
				partition.flowPausedAtNanos = nowNanos;
				countIf(count, this.counters.flowControlCount);
				countIf(size, this.counters.flowControlSize);
				countIf(span, this.counters.flowControlSpan);
			}
		}
		else if (nowNanos - partition.flowPausedAtNanos >= this.options.suspend().toNanos() && isBelowLowWater(partition)) {
			partition.flowPaused = false;
		}
	}

	/**
	 * How long until a paused partition may be looked at again.
	 * @param partition a paused partition
	 * @param nowNanos the time
	 * @return nanoseconds, zero or more
	 */
	long nanosUntilRecheck(PartitionState partition, long nowNanos) {
		return Math.max(0, partition.flowPausedAtNanos + this.options.suspend().toNanos() - nowNanos);
	}

	private boolean isBelowLowWater(PartitionState partition) {
		return partition.backlog <= lowWater(this.options.pullThresholdForQueue())
				&& partition.backlogBytes <= lowWater(this.options.pullThresholdSizeForQueue())
				&& (!spanCounts() || partition.span() <= lowWater(this.options.maxSpan()));
	}

	private boolean spanCounts() {
		return this.options.ordering() != Ordering.PARTITION;
	}

	private static long lowWater(long threshold) {
		return threshold / 100 * LOW_WATER_PERCENT + threshold % 100 * LOW_WATER_PERCENT / 100;
	}

	private static void countIf(boolean reason, java.util.concurrent.atomic.LongAdder counter) {
		if (reason) {
			counter.increment();
		}
	}

}

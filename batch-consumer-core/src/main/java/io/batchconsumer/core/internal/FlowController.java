package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;

/**
 * RocketMQ-style flow control per partition: stop fetching while the backlog (fetched, not
 * finished) is above {@code pull-threshold-for-queue} messages or
 * {@code pull-threshold-size-for-queue} bytes, or, when order is not per partition, while the span
 * from the lowest unfinished to the highest fetched offset is above {@code max-span}. A stopped
 * partition resumes only once every measure is below a low-water mark of
 * {@value #LOW_WATER_PERCENT}% so it does not thrash; it is looked at again after each completion
 * and at least every {@code suspend}. Each stop adds one to the counter of each reason that caused
 * it. (A fixed pause of {@code suspend} after every stop, as RocketMQ's pull does, would leave the
 * workers idle once they drain the buffer faster than that: at zero work a 1000-message buffer
 * drains in well under a millisecond.)
 *
 * <p>The container as a whole is bounded too: while the backlog of all its partitions together is
 * above {@code pull-threshold-for-container} messages (or {@code pull-threshold-size-for-container}
 * bytes), each partition that holds more than its share, that threshold divided by the partitions
 * assigned, stops (reason {@code container-count} or {@code container-size}, counted with
 * {@code count} or {@code size}). It resumes once it is below the low-water mark of its share or the
 * container below that of the whole; a partition stopped by its own thresholds only resumes by them.
 * So a few busy partitions may each fill up to their own threshold while the others are empty, and
 * many busy ones share what the container may hold (RocketMQ's {@code pullThresholdForTopic}
 * divides it among the queues always). A partition below its share keeps fetching, so no partition
 * waits for another's slow message. What the container buffers stays below its threshold plus each
 * partition's share and one poll: one partition may fill up to the whole threshold while the
 * container is below it, and the others then still take their shares. That is below twice the
 * threshold plus one poll per partition while the threshold is at least the number of partitions (a
 * share is at least one message).
 *
 * <p>A single message larger than the byte threshold still gets through: the threshold is checked
 * against what is buffered, so an empty partition is always fetched.
 *
 * <p>A count threshold below {@code pull-batch-size} is logged at WARN when the container is created
 * and after each tune that makes it so: a poll that brings that much of one partition then puts it
 * over the threshold, and fetching stops after every such poll (Kafka's pull of 2000 against the
 * generic threshold of 1000 did so once per 2000 records at zero work, which is why Kafka's default
 * threshold is higher; docs/performance.md). So is a partition's share of the container's count
 * threshold below {@code pull-batch-size}, once the partitions assigned or a tune make it so: while
 * the container is over its threshold, every poll then stops the partitions it filled.
 *
 * <p>Threading: owned by the owner thread.
 */
final class FlowController {

	static final int LOW_WATER_PERCENT = 80;

	private static final Logger logger = LoggerFactory.getLogger(FlowController.class);

	/** Replaced by {@link #retune} (runtime tuning). */
	private ContainerOptions options;

	private final Counters counters;

	/** Whether a partition's share of the container's count threshold was below one poll at the last look. */
	private boolean shareBelowAPoll;

	FlowController(ContainerOptions options, Counters counters) {
		this.options = options;
		this.counters = counters;
		warnIfAPollPassesTheCountThreshold(null, options);
	}

	/** Takes tuned options: the next checks use their thresholds. */
	void retune(ContainerOptions tuned) {
		warnIfAPollPassesTheCountThreshold(this.options, tuned);
		this.options = tuned;
	}

	private static void warnIfAPollPassesTheCountThreshold(ContainerOptions before, ContainerOptions now) {
		boolean was = before != null && before.pullThresholdForQueue() < before.pullBatchSize();
		if (!was && now.pullThresholdForQueue() < now.pullBatchSize()) {
			logger.warn("Container '{}' can stop fetching a partition after each poll: "
					+ "flow-control.pull-threshold-for-queue ({}) is below pull-batch-size ({}); set the threshold to "
					+ "at least twice the pull size", now.id(), now.pullThresholdForQueue(), now.pullBatchSize());
		}
	}

	private void warnIfAShareIsBelowAPoll(Shares shares, int assigned) {
		boolean below = shares.count() < this.options.pullBatchSize();
		if (below && !this.shareBelowAPoll) {
			logger.warn("Container '{}' can stop fetching a partition after each poll while its partitions hold more "
					+ "than flow-control.pull-threshold-for-container ({}) together: the share of each of its {} "
					+ "partitions ({}) is below pull-batch-size ({}); set the container threshold to at least twice the "
					+ "pull size times the partitions", this.options.id(), shares.countThreshold(), assigned,
					shares.count(), this.options.pullBatchSize());
		}
		this.shareBelowAPoll = below;
	}

	/**
	 * Evaluates every partition and tells the source which to pause and which to resume: those
	 * stopped by flow control, paused by an operator, or all while the container is paused.
	 * @param partitions the assigned partitions
	 * @param containerPaused whether the whole container is paused
	 * @param source the source
	 * @param nowNanos the time
	 */
	void apply(List<PartitionState> partitions, boolean containerPaused, MessageSource source, long nowNanos) {
		List<TopicPartition> pause = new ArrayList<>();
		List<TopicPartition> resume = new ArrayList<>();
		Shares shares = Shares.of(partitions, this.options);
		warnIfAShareIsBelowAPoll(shares, partitions.size());
		for (PartitionState partition : partitions) {
			evaluate(partition, shares, nowNanos);
			boolean shouldPause = partition.flow().isPaused() || partition.pauses.isUserPaused() || containerPaused;
			if (partition.pauses.sourcePausedChangesTo(shouldPause)) {
				(shouldPause ? pause : resume).add(partition.partition);
			}
		}
		if (!pause.isEmpty()) {
			source.pause(pause);
		}
		if (!resume.isEmpty()) {
			source.resume(resume);
		}
	}

	/**
	 * Pauses the partition for flow control, or resumes it below the low-water mark.
	 * @param partition the partition
	 * @param shares the container's backlog and each partition's share of its thresholds
	 * @param nowNanos the time
	 */
	void evaluate(PartitionState partition, Shares shares, long nowNanos) {
		if (!partition.flow().isPaused()) {
			boolean count = partition.backlog() > this.options.pullThresholdForQueue();
			boolean size = partition.backlogBytes() > this.options.pullThresholdSizeForQueue();
			boolean span = spanCounts() && partition.span() > this.options.maxSpan();
			boolean containerCount = shares.countOver() && partition.backlog() > shares.count();
			boolean containerSize = shares.sizeOver() && partition.backlogBytes() > shares.bytes();
			if (count || size || span || containerCount || containerSize) {
				partition.flow().pause(nowNanos, reasons(count, size, span, containerCount, containerSize));
				countIf(count || containerCount, this.counters.flowControlCount);
				countIf(size || containerSize, this.counters.flowControlSize);
				countIf(span, this.counters.flowControlSpan);
			}
		}
		else if (isBelowLowWater(partition) && shares.letsResume(partition)) {
			partition.flow().resume();
		}
	}

	/**
	 * How long the owner may sleep before it looks at a paused partition again. Finished work wakes
	 * it anyway (a completion is what lowers the measures); this is the {@code suspend} of RocketMQ,
	 * a bound on the wait when nothing else happens.
	 * @param partition a paused partition
	 * @param nowNanos the time
	 * @return nanoseconds, more than zero
	 */
	long nanosUntilRecheck(PartitionState partition, long nowNanos) {
		long suspend = Math.max(this.options.suspend().toNanos(), 1_000_000L);
		long sincePause = nowNanos - partition.flow().pausedAtNanos();
		return suspend - Math.floorMod(sincePause, suspend);
	}

	private boolean isBelowLowWater(PartitionState partition) {
		return partition.backlog() <= lowWater(this.options.pullThresholdForQueue())
				&& partition.backlogBytes() <= lowWater(this.options.pullThresholdSizeForQueue())
				&& (!spanCounts() || partition.span() <= lowWater(this.options.maxSpan()));
	}

	private boolean spanCounts() {
		return this.options.ordering() != Ordering.PARTITION;
	}

	static long lowWater(long threshold) {
		return threshold / 100 * LOW_WATER_PERCENT + threshold % 100 * LOW_WATER_PERCENT / 100;
	}

	private static String reasons(boolean count, boolean size, boolean span, boolean containerCount,
			boolean containerSize) {
		List<String> reasons = new ArrayList<>(2);
		addIf(reasons, count, "count");
		addIf(reasons, size, "size");
		addIf(reasons, span, "span");
		addIf(reasons, containerCount, "container-count");
		addIf(reasons, containerSize, "container-size");
		return String.join(",", reasons);
	}

	private static void addIf(List<String> reasons, boolean reason, String name) {
		if (reason) {
			reasons.add(name);
		}
	}

	private static void countIf(boolean reason, LongAdder counter) {
		if (reason) {
			counter.increment();
		}
	}

	/**
	 * The container's backlog over all its partitions, and each partition's share of the
	 * container's thresholds, taken once per evaluation of every partition.
	 * @param total buffered messages of every partition
	 * @param totalBytes buffered bytes of every partition
	 * @param count a partition's share of {@code pull-threshold-for-container}, at least 1
	 * @param bytes a partition's share of {@code pull-threshold-size-for-container}, at least 1
	 * @param countThreshold {@code pull-threshold-for-container}
	 * @param sizeThreshold {@code pull-threshold-size-for-container}
	 */
	record Shares(long total, long totalBytes, long count, long bytes, long countThreshold, long sizeThreshold) {

		static Shares of(List<PartitionState> partitions, ContainerOptions options) {
			long total = 0;
			long totalBytes = 0;
			for (PartitionState partition : partitions) {
				total += partition.backlog();
				totalBytes += partition.backlogBytes();
			}
			int assigned = Math.max(1, partitions.size());
			return new Shares(total, totalBytes, Math.max(1, options.pullThresholdForContainer() / assigned),
					Math.max(1, options.pullThresholdSizeForContainer() / assigned), options.pullThresholdForContainer(),
					options.pullThresholdSizeForContainer());
		}

		boolean countOver() {
			return this.total > this.countThreshold;
		}

		boolean sizeOver() {
			return this.totalBytes > this.sizeThreshold;
		}

		/**
		 * Whether the container lets a stopped partition fetch again: it did not stop it, or the
		 * partition or the container is low enough.
		 */
		boolean letsResume(PartitionState partition) {
			if (!partition.flow().byContainer()) {
				return true;
			}
			return (this.total <= lowWater(this.countThreshold) || partition.backlog() <= lowWater(this.count))
					&& (this.totalBytes <= lowWater(this.sizeThreshold)
							|| partition.backlogBytes() <= lowWater(this.bytes));
		}

	}

}

package io.batchconsumer.core.internal;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.batchconsumer.core.ContainerOptions;

/**
 * Decides whether the owner thread polls its source on this turn or only waits for its mailbox.
 *
 * <p>Two reasons not to poll: the {@code pull-interval} since the last poll that brought messages
 * has not passed, or the buffers are <em>deep</em> — the dispatchable partitions hold at least
 * {@code max(pull-batch-size, thread-size × consumer-batch-size)} messages while a worker is busy,
 * so the workers are fed until long after a completion wakes the owner. A poll then costs the owner
 * a round through the client (fetch bookkeeping, a selector call, and a wakeup of it from each
 * completion) per slice instead of per pull; waiting on the mailbox costs a queue hand-off. A deep
 * buffer holds the poll back for at most {@value #DEEP_BUFFER_GAP_MILLIS} ms, so rebalance
 * callbacks and commit results are never held longer than that.
 *
 * <p>Threading: owned by the owner thread.
 */
final class PollPacing {

	/** The longest a deep buffer holds the next poll back. */
	static final long DEEP_BUFFER_GAP_MILLIS = 10;

	private static final long DEEP_BUFFER_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(DEEP_BUFFER_GAP_MILLIS);

	/** Replaced by {@link #retune} (runtime tuning). */
	private ContainerOptions options;

	/** When the pull interval lets the next poll go, after a poll that brought messages. */
	private long nextPollNanos;

	/** When the last poll returned; {@code Long.MIN_VALUE / 2} before the first. */
	private long lastPollNanos = Long.MIN_VALUE / 2;

	PollPacing(ContainerOptions options) {
		this.options = options;
	}

	/** Takes tuned options: the next decisions use them. */
	void retune(ContainerOptions tuned) {
		this.options = tuned;
	}

	/**
	 * How long to wait for mail instead of polling now.
	 * @param partitions the assigned partitions
	 * @param busy slices on a worker
	 * @param nowNanos the time
	 * @return nanoseconds to wait, 0 to poll now
	 */
	long holdNanos(List<PartitionState> partitions, int busy, long nowNanos) {
		long hold = Math.max(0, this.nextPollNanos - nowNanos);
		long sinceLast = nowNanos - this.lastPollNanos;
		if (busy > 0 && sinceLast < DEEP_BUFFER_GAP_NANOS && isDeep(partitions)) {
			hold = Math.max(hold, DEEP_BUFFER_GAP_NANOS - sinceLast);
		}
		return hold;
	}

	/**
	 * A poll returned.
	 * @param nowNanos when it was started
	 * @param brought whether it brought messages
	 */
	void polled(long nowNanos, boolean brought) {
		this.lastPollNanos = nowNanos;
		if (brought && !this.options.pullInterval().isZero()) {
			this.nextPollNanos = nowNanos + this.options.pullInterval().toNanos();
		}
	}

	private boolean isDeep(List<PartitionState> partitions) {
		long deep = Math.max(this.options.pullBatchSize(),
				(long) this.options.threadSize() * this.options.consumerBatchSize());
		long buffered = 0;
		for (PartitionState partition : partitions) {
			if (partition.isDispatchable()) {
				buffered += partition.buffered();
				if (buffered >= deep) {
					return true;
				}
			}
		}
		return false;
	}

}

package io.batchconsumer.core.internal;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.SliceListener;

/**
 * How long a slice may be, and how many of its messages one listener call takes. A slice holds
 * {@code consumer-batch-size} messages until the listener was measured, then as many as take about
 * {@link #TARGET_NANOS} of listener time, between {@code consumer-batch-size} and
 * {@code pull-batch-size}. The time per message is a moving average over the completed slices (the
 * workers measure them), so slices shrink back as soon as the work gets slower. A listener that
 * handles each message on its own ({@link SliceListener#handlesEachMessage()}) gets a whole slice in
 * one call; any other gets it in consecutive calls of at most {@code consumer-batch-size}, one after
 * the other on the slice's worker, so a list never holds more than it asked for.
 *
 * <p>Why: at zero work the owner thread's cost is per slice (forming it, handing it out, taking its
 * completion back), so a slice of 10 cheap messages costs the owner more than the listener; a slice
 * of 100 µs makes that cost a few percent. Slices of slow messages stay at
 * {@code consumer-batch-size}, where the thread batch's parallelism matters.
 *
 * <p>Threading: owned by the owner thread.
 */
final class SliceSizing {

	/** The listener time a grown slice aims at. */
	static final long TARGET_NANOS = 100_000;

	/** Messages a window of the owner's cost covers before it counts. */
	static final int OWNER_WINDOW_MESSAGES = 4096;

	/** A window that took longer forgets the owner's cost: at such rates the owner is not the bound. */
	static final long OWNER_WINDOW_NANOS = 1_000_000_000L;

	/** Whether one call takes the whole slice ({@link SliceListener#handlesEachMessage()}). */
	private final boolean wholeSliceCalls;

	/** Moving average of the listener time per message (nanoseconds, at least 1); 0 before the first completion. */
	private long nanosPerMessage;

	/** Moving average of the owner's CPU time per message it polled (nanoseconds); 0 while unknown. */
	private long ownerNanosPerMessage;

	/** Whether the owner spent at least half of its last window's time on the CPU (not waiting for messages). */
	private boolean ownerBusy;

	/**
	 * The current window of the owner's cost: the messages polled in it, and the owner's CPU time and
	 * the time when it began (where the last one ended, the first where the owner's loop started,
	 * {@link #ownerStarts}).
	 */
	private long windowMessages;

	private long windowStartCpu;

	private long windowStart;

	SliceSizing(SliceListener listener) {
		this.wholeSliceCalls = listener.handlesEachMessage();
	}

	/**
	 * Takes a completed slice's time into the average (an eighth of the new sample).
	 * @param messages the slice's messages
	 * @param nanos the time its worker spent on it
	 */
	void completed(int messages, long nanos) {
		if (messages == 0) {
			return;
		}
		long sample = Math.max(1, nanos / messages);
		this.nanosPerMessage = (this.nanosPerMessage == 0) ? sample
				: this.nanosPerMessage + (sample - this.nanosPerMessage) / 8;
	}

	/**
	 * Starts the first window of the owner's cost, as its loop starts.
	 * @param cpuNanos the owner's CPU time so far, 0 where not measured
	 * @param nowNanos the monotonic time
	 */
	void ownerStarts(long cpuNanos, long nowNanos) {
		this.windowMessages = 0;
		this.windowStartCpu = cpuNanos;
		this.windowStart = nowNanos;
	}

	/**
	 * Takes the messages the owner thread polled in a turn of its loop, and its CPU time so far.
	 * A window of at least {@value #OWNER_WINDOW_MESSAGES} messages updates the average (a quarter of
	 * the new sample) and says whether the owner was busy (on the CPU at least half of the window's
	 * time); a window that took longer than {@value #OWNER_WINDOW_NANOS} ns forgets both.
	 * @param cpuNanos the owner's CPU time so far, 0 where not measured
	 * @param messages the messages polled in the turn
	 * @param nowNanos the monotonic time
	 */
	void ownerSpent(long cpuNanos, int messages, long nowNanos) {
		this.windowMessages += messages;
		long wall = nowNanos - this.windowStart;
		if (this.windowMessages >= OWNER_WINDOW_MESSAGES) {
			long cpu = cpuNanos - this.windowStartCpu;
			long sample = cpu / this.windowMessages;
			this.ownerNanosPerMessage = (this.ownerNanosPerMessage == 0) ? sample
					: this.ownerNanosPerMessage + (sample - this.ownerNanosPerMessage) / 4;
			this.ownerBusy = cpu * 2 >= wall;
		}
		else if (wall > OWNER_WINDOW_NANOS) {
			this.ownerNanosPerMessage = 0;
			this.ownerBusy = false;
		}
		else {
			return;
		}
		ownerStarts(cpuNanos, nowNanos);
	}

	/**
	 * Whether the owner thread bounds the rate: it was busy (on the CPU at least half of its last
	 * window's time, not waiting for messages: a consumer that keeps up with its producers is not
	 * bound by itself), and a worker handles a message in less than half the owner's time for it, so
	 * one worker keeps up with all the owner hands out, and cutting a run for more workers only costs
	 * the owner. Both are measured; until they are, {@code false}. A
	 * {@code key} batch is then not cut (see {@link ThreadBatchDispatcher}): one slice of up to
	 * {@code thread-size} times {@link #maxSliceSize}.
	 * @return {@code true} when a {@code key} batch is best handed out whole
	 */
	boolean ownerBound() {
		return this.ownerBusy && this.nanosPerMessage > 0 && this.nanosPerMessage * 2 < this.ownerNanosPerMessage;
	}

	/**
	 * The most messages a slice takes now.
	 * @param options the current options
	 * @return at least {@code consumer-batch-size}
	 */
	int maxSliceSize(ContainerOptions options) {
		int batchSize = options.consumerBatchSize();
		if (this.nanosPerMessage == 0) {
			return batchSize;
		}
		long fits = TARGET_NANOS / this.nanosPerMessage;
		return (int) Math.max(batchSize, Math.min(fits, options.pullBatchSize()));
	}

	/**
	 * The most messages one listener call of a slice formed now takes.
	 * @param options the current options
	 * @return {@code consumer-batch-size}, or {@link Integer#MAX_VALUE} (the whole slice) for a
	 *         listener that handles each message on its own
	 */
	int callSize(ContainerOptions options) {
		return this.wholeSliceCalls ? Integer.MAX_VALUE : options.consumerBatchSize();
	}

}

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

	/** Whether one call takes the whole slice ({@link SliceListener#handlesEachMessage()}). */
	private final boolean wholeSliceCalls;

	/** Moving average of the listener time per message (nanoseconds, at least 1); 0 before the first completion. */
	private long nanosPerMessage;

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

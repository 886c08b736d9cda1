package io.batchconsumer.core;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * A {@link SliceListener} that completes later: it starts the work of a slice and returns a
 * {@link CompletionStage}, and the worker is free at once. The stage may complete on any thread;
 * its result is taken on like a synchronous one: a {@link BatchResult} (or {@code null}, every
 * message succeeded) or an exception, which fails the whole call. A stage that does not complete
 * within {@code async.timeout} fails the call with a {@link java.util.concurrent.TimeoutException};
 * failed messages are retried and dead-lettered as ever.
 *
 * <p>Until its stage completes or {@code async.timeout} passes, a call's messages stay in flight: the
 * commit watermark does not pass them, the slices of their keys wait behind them, and a revoke or a
 * stop waits for them up to {@code shutdown-timeout}. What limits how many calls are in flight at once is flow control
 * ({@code flow-control.max-span}, {@code flow-control.pull-threshold-for-queue}), not the threads. A
 * stage that timed out is not cancelled: its retry may run while it still does.
 *
 * <p>The time a call takes, for sizing slices, is its latency (until its stage completed), so slow
 * calls keep slices at {@code consumer-batch-size}. Not for exactly-once processing: a delivery's
 * transaction lives on its worker, and work completing on other threads would be outside it.
 *
 * <p>Threading: {@link #onSliceAsync} is called on worker threads, concurrently.
 */
@FunctionalInterface
public interface AsyncSliceListener extends SliceListener {

	/**
	 * Starts the work of a slice.
	 * @param slice the messages, all of one partition, in offset order; never empty
	 * @return a stage that completes with which messages failed ({@code null}: none), or
	 *         exceptionally to fail them all; {@code null} is taken as a success
	 * @throws Exception to fail the whole slice at once
	 */
	CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice) throws Exception;

	/**
	 * Starts the work of a slice of a known partition epoch; the engine calls this method, which by
	 * default calls {@link #onSliceAsync(List)}.
	 * @param slice the messages, all of one partition, in offset order; never empty
	 * @param epoch the epoch of the partition the slice was handed out in
	 * @return a stage as {@link #onSliceAsync(List)} returns
	 * @throws Exception to fail the whole slice at once
	 */
	default CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice, long epoch) throws Exception {
		return onSliceAsync(slice);
	}

	/**
	 * The synchronous form, for a caller that knows only {@link SliceListener} (a decorator that
	 * wraps this listener): starts the work and waits for its stage on the calling thread.
	 * @param slice the messages
	 * @return which messages failed
	 * @throws Exception what the stage completed with
	 */
	@Override
	default BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
		CompletionStage<BatchResult> stage = onSliceAsync(slice);
		if (stage == null) {
			return BatchResult.success();
		}
		try {
			BatchResult result = stage.toCompletableFuture().get();
			return (result != null) ? result : BatchResult.success();
		}
		catch (ExecutionException | CompletionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof Exception exception) {
				throw exception;
			}
			throw (Error) cause;
		}
	}

}

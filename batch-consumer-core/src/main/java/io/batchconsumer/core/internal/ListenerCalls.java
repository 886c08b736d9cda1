package io.batchconsumer.core.internal;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.batchconsumer.core.AsyncSliceListener;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * One listener call of a slice and its outcome, for {@link SliceRunner}: calls the listener, and
 * turns what it returned, or threw, into a {@link Failure} (or none), counted and observed. An
 * {@link AsyncSliceListener}'s stage that is not complete when it returns is left on the slice
 * ({@link Slice#pending}) and {@link #AWAITING} returned; {@link #settle} takes its outcome once it
 * completed, measured from the call's start.
 *
 * <p>A {@link VirtualMachineError} is thrown on, never taken as the call's failure.
 *
 * <p>Threading: shared by all workers; holds no mutable state of its own.
 */
final class ListenerCalls {

	/** What {@link #deliver} returns while an asynchronous call's stage is pending. */
	static final Failure AWAITING = new Failure(List.of(), (message) -> null, (message) -> true);

	private final ContainerOptions options;

	private final SliceListener listener;

	private final ContainerObserver observer;

	private final Counters counters;

	private final Ticker ticker;

	ListenerCalls(ContainerOptions options, SliceListener listener, ContainerObserver observer, Counters counters,
			Ticker ticker) {
		this.options = options;
		this.listener = listener;
		this.observer = observer;
		this.counters = counters;
		this.ticker = ticker;
	}

	/**
	 * Calls the listener; for an asynchronous one whose stage is not complete yet, leaves the call
	 * on the slice ({@link Slice#pending}) and returns {@link #AWAITING}.
	 */
	Failure deliver(Slice slice, List<Message<byte[]>> delivered) {
		slice.attempts = delivered.stream().mapToInt(Message::deliveryAttempt).min().orElse(1);
		long start = this.ticker.nanoTime();
		if (this.listener instanceof AsyncSliceListener async) {
			PendingCall call;
			try {
				CompletionStage<BatchResult> stage = async.onSliceAsync(delivered, slice.epoch);
				if (stage == null) {
					return outcome(slice, delivered, start, null, null);
				}
				call = PendingCall.follow(stage, delivered, start, this.options.asyncTimeout());
			}
			catch (VirtualMachineError ex) {
				throw ex;
			}
			catch (Throwable ex) {
				return outcome(slice, delivered, start, null, ex);
			}
			if (!call.isDone()) {
				this.counters.asyncCallsInFlight.increment();
				call.whenDone(this.counters.asyncCallsInFlight::decrement);
				slice.pending = call;
				return AWAITING;
			}
			return settle(slice, call);
		}
		BatchResult result = null;
		Throwable error = null;
		try {
			result = this.listener.onSlice(delivered, slice.epoch);
		}
		catch (VirtualMachineError ex) {
			throw ex;
		}
		catch (Throwable ex) {
			error = ex;
		}
		return outcome(slice, delivered, start, result, error);
	}

	/** The outcome of an asynchronous call whose stage completed (or timed out). */
	Failure settle(Slice slice, PendingCall call) {
		BatchResult result = null;
		Throwable error = null;
		try {
			result = call.outcome();
		}
		catch (VirtualMachineError ex) {
			throw ex;
		}
		catch (Throwable ex) {
			error = ex;
		}
		return outcome(slice, call.delivered, call.startNanos, result, error);
	}

	/** Counts and observes a call's outcome: its result, or the exception that failed it whole. */
	private Failure outcome(Slice slice, List<Message<byte[]>> delivered, long start, BatchResult returned,
			Throwable error) {
		Failure failure;
		int completedBefore = 0;
		if (error != null) {
			failure = new Failure(delivered, (message) -> error, (message) -> true);
		}
		else {
			BatchResult result = (returned != null) ? returned.resolvedAgainst(delivered) : null;
			List<Message<byte[]>> failed = (result != null) ? result.failedOf(delivered) : List.of();
			failure = failed.isEmpty() ? null : new Failure(failed, result::causeOf, result::isRetryable);
			completedBefore = (result != null) ? result.completedBefore() : 0;
		}
		int failedCount = (failure != null) ? failure.messages().size() : 0;
		this.observer.sliceProcessed(slice.partition.partition, delivered.size(), this.ticker.nanoTime() - start, failedCount);
		this.counters.succeeded.add(delivered.size() - failedCount - completedBefore);
		this.counters.completedBefore.add(completedBefore);
		return failure;
	}

}

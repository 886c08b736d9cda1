package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;

/**
 * One listener call of an {@link io.batchconsumer.core.AsyncSliceListener} whose stage had not
 * completed when the listener returned: the messages it delivered, when, and its outcome — a copy
 * of the listener's stage that also fails after {@code async.timeout} (the listener's own stage is
 * never completed or cancelled by the engine).
 *
 * <p>Threading: created by a worker; {@link #whenDone} is called by the owner thread and its action
 * runs on whichever thread completes the stage (or times it out, or the owner when it is done
 * already); {@link #outcome} is read by the worker that goes on with the slice, after the owner
 * handed it over.
 */
final class PendingCall {

	final List<Message<byte[]>> delivered;

	final long startNanos;

	private final Duration timeout;

	private final CompletableFuture<BatchResult> outcome = new CompletableFuture<>();

	/** Set before {@link #outcome} completes from the listener's stage: tells its time-out from the listener's own. */
	private volatile boolean listenerCompleted;

	private PendingCall(List<Message<byte[]>> delivered, long startNanos, Duration timeout) {
		this.delivered = delivered;
		this.startNanos = startNanos;
		this.timeout = timeout;
	}

	/**
	 * Follows a listener's stage.
	 * @param stage the stage the listener returned, not {@code null}
	 * @param delivered the messages of the call
	 * @param startNanos when the call started
	 * @param timeout {@code async.timeout}
	 * @return the call; {@link #isDone()} when the stage had completed already
	 */
	static PendingCall follow(CompletionStage<BatchResult> stage, List<Message<byte[]>> delivered, long startNanos,
			Duration timeout) {
		PendingCall call = new PendingCall(delivered, startNanos, timeout);
		stage.whenComplete((result, error) -> {
			call.listenerCompleted = true;
			if (error != null) {
				call.outcome.completeExceptionally(unwrapped(error));
			}
			else {
				call.outcome.complete(result);
			}
		});
		if (!call.outcome.isDone()) {
			call.outcome.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		return call;
	}

	boolean isDone() {
		return this.outcome.isDone();
	}

	/**
	 * Runs an action once the outcome is known (at once, on this thread, when it is known already).
	 * @param action the action; must not block
	 */
	void whenDone(Runnable action) {
		this.outcome.whenComplete((result, error) -> action.run());
	}

	/**
	 * The listener's result, once {@link #isDone()}.
	 * @return the result, {@code null} for a success
	 * @throws Throwable what the stage failed with, or a {@link TimeoutException} naming {@code async.timeout}
	 */
	BatchResult outcome() throws Throwable {
		try {
			return this.outcome.join();
		}
		catch (CompletionException ex) {
			Throwable cause = unwrapped(ex);
			if (cause instanceof TimeoutException && !this.listenerCompleted) {
				throw new TimeoutException("The listener's CompletionStage did not complete within async.timeout ("
						+ this.timeout + ")");
			}
			throw cause;
		}
	}

	private static Throwable unwrapped(Throwable error) {
		Throwable cause = error;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}

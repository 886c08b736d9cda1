package io.batchconsumer.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.batchconsumer.core.AsyncSliceListener;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;

/**
 * Applies a {@link SliceListenerDecorator} to an {@link AsyncSliceListener} so that the listener stays
 * asynchronous. The decorator is given an {@link AsyncSliceListener}: one that returns one too (it
 * knows asynchronous listeners) is taken as it is. One that returns a plain {@link SliceListener}
 * surrounds the start of each call: the listener it wraps starts the call and returns at once, and
 * the stage it started is what the engine awaits, so the worker is free while it is pending.
 *
 * <p>What the wrapped listener returns to such a decorator while the stage is pending is {@code null}
 * (its outcome is not known yet); when the stage had completed already, its result. The decorator's
 * own return value is then not used, unless it never called the wrapped listener (its result is the
 * call's). An exception the decorator throws fails the call, once the stages it started completed
 * (the slice is not tried again while they run).
 * A decorator that calls the wrapped listener more than once in one call (once per part of the slice)
 * has the engine await every stage it started; the slice succeeds when every one succeeded, and is
 * failed as a whole (each part's result names messages of its own part only) when one did not.
 * The decorator must call the wrapped listener on the thread that called it, as any decorator does.
 *
 * <p>Threading: the hand-over of the started stage is a thread-local of the worker that runs the call;
 * otherwise stateless.
 */
final class AsyncDecoration {

	private AsyncDecoration() {
	}

	/**
	 * Applies a decorator.
	 * @param decorator the decorator
	 * @param options the container's options
	 * @param listener the listener (possibly decorated already)
	 * @return the decorated listener, asynchronous when {@code listener} is
	 */
	static SliceListener apply(SliceListenerDecorator decorator, ContainerOptions options, SliceListener listener) {
		if (!(listener instanceof AsyncSliceListener async)) {
			return decorator.decorate(options, listener);
		}
		Starter starter = new Starter(async);
		SliceListener decorated = decorator.decorate(options, starter);
		if (decorated instanceof AsyncSliceListener || decorated == null) {
			return decorated;
		}
		return new DecoratedStart(decorated, starter);
	}

	/** The asynchronous listener as a decorator sees it: its synchronous form starts the call and returns. */
	private static final class Starter implements AsyncSliceListener {

		private final AsyncSliceListener listener;

		/** The stage of the call in progress on this thread, set while {@link DecoratedStart} runs a call. */
		private final ThreadLocal<Started> started = new ThreadLocal<>();

		Starter(AsyncSliceListener listener) {
			this.listener = listener;
		}

		@Override
		public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice) throws Exception {
			return this.listener.onSliceAsync(slice);
		}

		@Override
		public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice, long epoch) throws Exception {
			return this.listener.onSliceAsync(slice, epoch);
		}

		/** Starts the call and returns at once, when a decorated call runs on this thread; else waits for it. */
		@Override
		public BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
			Started call = this.started.get();
			if (call == null) {
				return AsyncSliceListener.super.onSlice(slice);
			}
			CompletionStage<BatchResult> stage = (call.epoch != null) ? this.listener.onSliceAsync(slice, call.epoch)
					: this.listener.onSliceAsync(slice);
			CompletableFuture<BatchResult> future = (stage != null) ? stage.toCompletableFuture()
					: CompletableFuture.completedFuture(null);
			call.stages.add(future);
			return (future.isDone() && !future.isCompletedExceptionally()) ? future.join() : null;
		}

		@Override
		public boolean handlesEachMessage() {
			return this.listener.handlesEachMessage();
		}

		@Override
		public void epochStarted(TopicPartition partition, long epoch) {
			this.listener.epochStarted(partition, epoch);
		}

	}

	/** The call of a decorated listener in progress on a worker: its epoch and the stage it started. */
	private static final class Started {

		/** {@code null} when the call came without one. */
		final Long epoch;

		/** The stages started, in order; only the thread that runs the call adds to it. */
		final List<CompletableFuture<BatchResult>> stages = new ArrayList<>(1);

		Started(Long epoch) {
			this.epoch = epoch;
		}

	}

	/** Runs the decorator's listener around the start of each call and hands the engine the stage. */
	private static final class DecoratedStart implements AsyncSliceListener {

		private final SliceListener decorated;

		private final Starter starter;

		DecoratedStart(SliceListener decorated, Starter starter) {
			this.decorated = decorated;
			this.starter = starter;
		}

		@Override
		public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice) throws Exception {
			return start(slice, null);
		}

		@Override
		public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice, long epoch) throws Exception {
			return start(slice, epoch);
		}

		private CompletionStage<BatchResult> start(List<Message<byte[]>> slice, Long epoch) throws Exception {
			Started call = new Started(epoch);
			Started outer = this.starter.started.get();
			this.starter.started.set(call);
			BatchResult result;
			try {
				result = (epoch != null) ? this.decorated.onSlice(slice, epoch) : this.decorated.onSlice(slice);
			}
			catch (Exception | Error ex) {
				if (call.stages.isEmpty()) {
					throw ex;
				}
				// The calls it started run on: the slice fails once they ended, not tried again beside them.
				return CompletableFuture.allOf(call.stages.toArray(CompletableFuture[]::new))
					.handle((done, stageFailure) -> {
						throw (ex instanceof CompletionException) ? (CompletionException) ex : new CompletionException(ex);
					});
			}
			finally {
				if (outer != null) {
					this.starter.started.set(outer);
				}
				else {
					this.starter.started.remove();
				}
			}
			return switch (call.stages.size()) {
				case 0 -> CompletableFuture.completedFuture(result);
				case 1 -> call.stages.get(0);
				default -> all(call.stages, slice);
			};
		}

		/** Completes once every stage did: a success when each one succeeded, else the slice failed. */
		private static CompletionStage<BatchResult> all(List<CompletableFuture<BatchResult>> stages,
				List<Message<byte[]>> slice) {
			return CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).thenApply((done) -> {
				for (CompletableFuture<BatchResult> stage : stages) {
					BatchResult part = stage.join();
					if (part != null && !part.isSuccess()) {
						return BatchResult.failed(slice, part.cause());
					}
				}
				return BatchResult.success();
			});
		}

		@Override
		public boolean handlesEachMessage() {
			return this.decorated.handlesEachMessage();
		}

		@Override
		public void epochStarted(TopicPartition partition, long epoch) {
			this.decorated.epochStarted(partition, epoch);
		}

	}

}

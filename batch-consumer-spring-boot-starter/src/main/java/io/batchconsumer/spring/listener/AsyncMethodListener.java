package io.batchconsumer.spring.listener;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.batchconsumer.core.AsyncSliceListener;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;

/**
 * A {@code @BatchListener} method that returns a {@code CompletionStage}, as the engine's
 * {@link AsyncSliceListener}: a list method is started once per call with the converted messages; a
 * single-message method is started once per message, and the slice's stage completes when every
 * message's has, each message failing alone with its own cause.
 *
 * <p>A single-message method keeps the container's ordering within a slice: in {@code key} order the
 * calls of one key start one after the other (each when the one before completed, on the thread
 * that completed it), keyless messages and other keys at once; in {@code partition} order every call
 * waits for the one before; {@code unordered} starts them all at once.
 *
 * <p>Threading: stateless; called concurrently by the workers of one container.
 */
final class AsyncMethodListener implements AsyncSliceListener {

	private final BatchListenerMethodAdapter adapter;

	private final Ordering ordering;

	AsyncMethodListener(BatchListenerMethodAdapter adapter, Ordering ordering) {
		this.adapter = adapter;
		this.ordering = ordering;
	}

	@Override
	public boolean handlesEachMessage() {
		return this.adapter.handlesEachMessage();
	}

	@Override
	public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice) {
		if (this.adapter.listenerMethod().isBatch()) {
			return this.adapter.startBatch(slice);
		}
		List<CompletableFuture<BatchResult>> calls = startEach(slice);
		return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).handle((ignored, error) -> {
			BatchResult.Builder failed = BatchResult.builder();
			for (int i = 0; i < slice.size(); i++) {
				fail(failed, slice.get(i), calls.get(i));
			}
			return failed.build();
		});
	}

	/** Starts a call per message, each after the call it must follow in the container's ordering. */
	private List<CompletableFuture<BatchResult>> startEach(List<Message<byte[]>> slice) {
		Map<String, CompletableFuture<BatchResult>> lastOfKey = new HashMap<>();
		CompletableFuture<BatchResult> last = null;
		CompletableFuture<?>[] calls = new CompletableFuture<?>[slice.size()];
		for (int i = 0; i < slice.size(); i++) {
			Message<byte[]> message = slice.get(i);
			CompletableFuture<BatchResult> before = switch (this.ordering) {
				case PARTITION -> last;
				case KEY -> (message.key() != null) ? lastOfKey.get(message.key()) : null;
				case UNORDERED -> null;
			};
			CompletableFuture<BatchResult> call = (before == null) ? this.adapter.startOne(message).toCompletableFuture()
					: before.handle((result, error) -> null)
						.thenCompose((ignored) -> this.adapter.startOne(message))
						.toCompletableFuture();
			calls[i] = call;
			last = call;
			if (message.key() != null) {
				lastOfKey.put(message.key(), call);
			}
		}
		@SuppressWarnings("unchecked")
		List<CompletableFuture<BatchResult>> started = List.of((CompletableFuture<BatchResult>[]) calls);
		return started;
	}

	/** Adds a message's failure, if its call failed, with its own cause and whether it may be retried. */
	private static void fail(BatchResult.Builder failed, Message<byte[]> message, CompletableFuture<BatchResult> call) {
		BatchResult result;
		try {
			result = call.join();
		}
		catch (RuntimeException ex) {
			failed.fail(message, BatchListenerMethodAdapter.unwrapped(ex));
			return;
		}
		if (result != null && !result.isSuccess()) {
			if (result.resolvedAgainst(List.of(message)).isRetryable(message)) {
				failed.fail(message, result.cause());
			}
			else {
				failed.failWithoutRetry(message, result.cause());
			}
		}
	}

}

package io.batchconsumer.spring.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.AsyncSliceListener;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decorator that calls the asynchronous listener it wraps more than once in one call (one call per
 * part of the slice): the engine awaits every call it started, not only the last, and a part that
 * failed fails the slice. A decorator that throws, calls the listener on another thread or not at
 * all gives the call the outcome a synchronous listener would have had.
 */
class AsyncDecorationTests {

	private final List<CompletableFuture<BatchResult>> started = new ArrayList<>();

	private final AsyncSliceListener listener = new AsyncSliceListener() {
		@Override
		public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice) {
			CompletableFuture<BatchResult> stage = new CompletableFuture<>();
			AsyncDecorationTests.this.started.add(stage);
			return stage;
		}
	};

	/** Calls the wrapped listener once per message. */
	private final SliceListenerDecorator perMessage = (options, wrapped) -> (SliceListener) (slice) -> {
		for (Message<byte[]> message : slice) {
			wrapped.onSlice(List.of(message));
		}
		return BatchResult.success();
	};

	@Test
	void aCallIsPendingUntilEveryCallTheDecoratorStartedCompleted() throws Exception {
		AsyncSliceListener decorated = decorate();
		List<Message<byte[]>> slice = slice(2);
		CompletableFuture<BatchResult> stage = decorated.onSliceAsync(slice).toCompletableFuture();
		assertThat(this.started).hasSize(2);
		this.started.get(1).complete(BatchResult.success());
		assertThat(stage).as("the first message's call still runs").isNotDone();
		this.started.get(0).complete(BatchResult.success());
		assertThat(stage).isCompletedWithValueMatching(BatchResult::isSuccess);
	}

	@Test
	void aPartThatFailedFailsTheSlice() throws Exception {
		AsyncSliceListener decorated = decorate();
		List<Message<byte[]>> slice = slice(2);
		CompletableFuture<BatchResult> stage = decorated.onSliceAsync(slice).toCompletableFuture();
		this.started.get(0).complete(BatchResult.failedAt(0, new IllegalStateException("first failed")));
		this.started.get(1).complete(BatchResult.success());
		BatchResult result = stage.join();
		assertThat(result.isSuccess()).isFalse();
		assertThat(result.cause()).hasMessage("first failed");
		assertThat(result.resolvedAgainst(slice).isRetryable(slice.get(0))).isTrue();
	}

	/**
	 * A decorator that throws after it started the call (a check of the {@code null} it was handed):
	 * the call fails, but only once the stage it started completed, so that the slice is not tried
	 * again while its first call still runs.
	 */
	@Test
	void aDecoratorThatThrowsAfterStartingTheCallFailsItOnceTheStageCompleted() throws Exception {
		SliceListenerDecorator throwing = (options, wrapped) -> (SliceListener) (slice) -> {
			wrapped.onSlice(slice);
			throw new IllegalStateException("the decorator failed");
		};
		AsyncSliceListener decorated = decorate(throwing);
		CompletableFuture<BatchResult> stage = decorated.onSliceAsync(slice(1)).toCompletableFuture();
		assertThat(this.started).hasSize(1);
		assertThat(stage).as("the call it started still runs").isNotDone();
		this.started.get(0).complete(BatchResult.success());
		assertThat(stage).isCompletedExceptionally();
		assertThat(stage.handle((result, ex) -> ex).join()).rootCause().hasMessage("the decorator failed");
	}

	@Test
	void aDecoratorThatCallsTheListenerOnAnotherThreadGetsItsOutcome() throws Exception {
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			SliceListenerDecorator elsewhere = (options, wrapped) -> (SliceListener) (slice) -> other
				.submit(() -> wrapped.onSlice(slice)).get(10, TimeUnit.SECONDS);
			AsyncSliceListener decorated = decorate(elsewhere, (slice) -> CompletableFuture
				.completedFuture(BatchResult.failedAt(0, new IllegalStateException("failed elsewhere"))));
			BatchResult result = decorated.onSliceAsync(slice(1)).toCompletableFuture().join();
			assertThat(result.isSuccess()).isFalse();
			assertThat(result.cause()).hasMessage("failed elsewhere");
		}
		finally {
			other.shutdownNow();
		}
	}

	@Test
	void aDecoratorThatDoesNotCallTheListenerGivesTheCallItsOwnResult() throws Exception {
		SliceListenerDecorator refusing = (options, wrapped) -> (SliceListener) (slice) -> BatchResult
			.failedAt(0, new IllegalStateException("refused"));
		AsyncSliceListener decorated = decorate(refusing);
		BatchResult result = decorated.onSliceAsync(slice(1)).toCompletableFuture().join();
		assertThat(this.started).isEmpty();
		assertThat(result.cause()).hasMessage("refused");
	}

	private AsyncSliceListener decorate() {
		return decorate(this.perMessage);
	}

	private AsyncSliceListener decorate(SliceListenerDecorator decorator) {
		return decorate(decorator, this.listener);
	}

	private AsyncSliceListener decorate(SliceListenerDecorator decorator, AsyncSliceListener listener) {
		ContainerOptions options = ContainerOptions.builder("decorated").topics("t").group("g").build();
		SliceListener decorated = AsyncDecoration.apply(decorator, options, listener);
		assertThat(decorated).isInstanceOf(AsyncSliceListener.class);
		return (AsyncSliceListener) decorated;
	}

	private static List<Message<byte[]>> slice(int size) {
		List<Message<byte[]>> slice = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			slice.add(new Message<>("t", 0, i, "k", ("m-" + i).getBytes(StandardCharsets.UTF_8), Map.of(), 0L, 1, 3));
		}
		return slice;
	}

}

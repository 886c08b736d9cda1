package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A slice longer than its call size runs as consecutive listener calls on its worker, each call's
 * retries and dead letters done before the next call starts: a list never holds more than
 * {@code consumer-batch-size} messages, and the messages reach the listener in offset order even
 * when a call fails, as they would in separate slices behind the key gate; a slice run again after
 * an escaped {@code Throwable} does not deliver its finished calls again.
 */
class SliceCallsTests {

	private final OwnerSteps steps = new OwnerSteps(1);

	private final RecordingDeadLetterSink deadLetters = new RecordingDeadLetterSink();

	private final ContainerOptions options = ContainerOptions.builder("calls").topics(OwnerSteps.TOPIC).group("g")
		.consumerBatchSize(10).retryMaxAttempts(2).retryBackoff(Duration.ofMillis(1)).build();

	/** Every call's offsets, in the order the listener was called. */
	private final List<List<Long>> calls = new ArrayList<>();

	@Test
	void aSliceOfThirtyFiveRunsAsCallsOfTenTenTenAndFiveInOffsetOrder() {
		Slice slice = slice(35, 10);
		boolean finished = runner(recording((messages) -> BatchResult.success())).process(slice);
		assertThat(finished).isTrue();
		assertThat(this.calls).extracting(List::size).containsExactly(10, 10, 10, 5);
		assertThat(this.calls.stream().flatMap(List::stream)).containsExactlyElementsOf(offsets(0, 35));
	}

	@Test
	void aFailedCallIsRetriedBeforeTheNextCallStarts() {
		Slice slice = slice(30, 10);
		boolean finished = runner(recording(throwingOnceAt(10, new IllegalStateException("first try of the second call"))))
			.process(slice);
		assertThat(finished).isTrue();
		assertThat(this.calls).extracting((call) -> call.get(0)).containsExactly(0L, 10L, 10L, 20L);
		assertThat(this.deadLetters.stored()).isEmpty();
	}

	@Test
	void aCallThatFailsEveryAttemptIsDeadLetteredAndTheNextCallsStillRun() {
		Slice slice = slice(25, 10);
		boolean finished = runner(recording((messages) -> {
			List<Message<byte[]>> poison = messages.stream().filter((message) -> message.offset() == 13).toList();
			return poison.isEmpty() ? BatchResult.success() : BatchResult.failed(poison, new IllegalStateException("13"));
		})).process(slice);
		assertThat(finished).isTrue();
		// The second call, then its retry of 13 alone, before the third call.
		assertThat(this.calls).extracting(List::size).containsExactly(10, 10, 1, 5);
		assertThat(this.calls.get(2)).containsExactly(13L);
		assertThat(this.deadLetters.stored()).singleElement()
			.satisfies((letter) -> assertThat(letter.message().offset()).isEqualTo(13));
	}

	@Test
	void aSliceRunAgainAfterAnErrorEscapedGoesOnAfterItsLastFinishedCall() {
		Slice slice = slice(35, 10);
		// Not the message's fault: thrown on to the task, which gives the slice back to run again.
		SliceRunner runner = runner(recording(throwingOnceAt(20, new StackOverflowError("in the third call"))));
		assertThatThrownBy(() -> runner.process(slice)).isInstanceOf(StackOverflowError.class);
		assertThat(runner.process(slice)).isTrue();
		assertThat(this.calls).extracting((call) -> call.get(0)).containsExactly(0L, 10L, 20L, 20L, 30L);
	}

	@Test
	void aListenerThatHandlesEachMessageGetsTheWholeSliceInOneCall() {
		SliceListener each = SliceListener.eachMessage((message) -> {
		});
		int callSize = new SliceSizing(each).callSize(this.options);
		assertThat(callSize).isEqualTo(Integer.MAX_VALUE);
		Slice slice = slice(35, callSize);
		SliceListener recorded = recording((messages) -> BatchResult.success());
		assertThat(runner(recorded).process(slice)).isTrue();
		assertThat(this.calls).extracting(List::size).containsExactly(35);
	}

	private Slice slice(int messages, int callSize) {
		PartitionState partition = this.steps.partition(0);
		this.steps.fetch(partition, messages);
		List<Message<byte[]>> run = partition.take(messages);
		Slice slice = partition.openBatch(0, messages - 1, List.of(run), callSize, 0)[0];
		partition.startSlice();
		return slice;
	}

	private SliceRunner runner(SliceListener listener) {
		return new SliceRunner(this.options, listener, this.deadLetters, ContainerObserver.NONE,
				new PublishedState("calls", 1));
	}

	private SliceListener recording(SliceListener listener) {
		return (messages) -> {
			this.calls.add(messages.stream().map(Message::offset).toList());
			return listener.onSlice(messages);
		};
	}

	/** Succeeds, but throws once on the first call that starts at {@code offset}. */
	private static SliceListener throwingOnceAt(long offset, Throwable thrown) {
		AtomicBoolean done = new AtomicBoolean();
		return (messages) -> {
			if (messages.get(0).offset() == offset && done.compareAndSet(false, true)) {
				if (thrown instanceof Error error) {
					throw error;
				}
				throw (Exception) thrown;
			}
			return BatchResult.success();
		};
	}

	private static List<Long> offsets(long from, long to) {
		List<Long> offsets = new ArrayList<>();
		for (long offset = from; offset < to; offset++) {
			offsets.add(offset);
		}
		return offsets;
	}

}

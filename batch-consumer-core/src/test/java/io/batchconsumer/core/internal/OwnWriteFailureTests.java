package io.batchconsumer.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.RetryQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write of the container's own that keeps failing (a dead letter, the retry queue) shows as the
 * container's {@code sourceError}, which turns its health {@code DOWN}, until one succeeds; a single
 * failed try that the next one makes good does not show, so a passing lock timeout does not make the
 * health flap, and a failure whose write is not tried again is dropped.
 */
class OwnWriteFailureTests {

	private final OwnerSteps steps = new OwnerSteps(1);

	private final PublishedState status = new PublishedState("own", 1);

	/** The source error the statistics showed at each try of the sink, in order. */
	private final List<String> seenAtEachTry = new ArrayList<>();

	@Test
	void aDeadLetterWriteThatFailsOnceAndThenSucceedsIsNotShown() {
		ContainerOptions options = options().build();
		assertThat(runner(options, failing(1), null).process(slice(1))).isTrue();
		assertThat(this.seenAtEachTry).containsExactly(null, null);
		assertThat(this.status.stats().sourceError()).isNull();
	}

	@Test
	void aDeadLetterWriteThatKeepsFailingIsShownUntilItIsStored() {
		ContainerOptions options = options().build();
		assertThat(runner(options, failing(3), null).process(slice(1))).isTrue();
		assertThat(this.seenAtEachTry).hasSize(4);
		assertThat(this.seenAtEachTry.subList(0, 2)).containsOnlyNulls();
		assertThat(this.seenAtEachTry.subList(2, 4)).containsExactly(
				"Dead-letter write failed 2 times in a row: IllegalStateException: the disk is full",
				"Dead-letter write failed 3 times in a row: IllegalStateException: the disk is full");
		assertThat(this.status.stats().sourceError()).isNull();
	}

	@Test
	void aRetryQueueThatKeepsFailingIsShownUntilItStoresAgain() {
		ContainerOptions options = options().retryMaxAttempts(5).retryBackoff(Duration.ofMillis(10))
			.retryMaxBackoff(Duration.ofMillis(10)).retryBlockingLimit(Duration.ofMillis(1))
			.ordering(Ordering.UNORDERED).build();
		AtomicInteger tries = new AtomicInteger();
		RetryQueue queue = new RetryQueue() {
			@Override
			public String topic() {
				return "own-retry";
			}

			@Override
			public void schedule(List<Message<byte[]>> messages, Instant dueAt) {
				OwnWriteFailureTests.this.seenAtEachTry.add(OwnWriteFailureTests.this.status.stats().sourceError());
				if (tries.incrementAndGet() <= 2) {
					throw new IllegalStateException("the disk is full");
				}
			}
		};
		SliceRunner runner = runner(options, failing(0), queue);
		// Two failed hand-offs are retried in place after the back-off; the third is stored.
		assertThat(runner.process(slice(1))).isTrue();
		assertThat(this.seenAtEachTry).hasSize(3);
		assertThat(this.seenAtEachTry.get(2)).startsWith("Retry-queue write failed 2 times in a row: "
				+ "IllegalStateException: the disk is full");
		assertThat(this.status.stats().sourceError()).isNull();
	}

	/**
	 * A write that is not tried again (its partition was revoked, its retry succeeded in place) leaves
	 * no error behind for good: a failure is shown until twice the wait for its next try has passed.
	 */
	@Test
	void aShownFailureIsDroppedWhenItsWriteIsNotTriedAgain() {
		AtomicLong nanos = new AtomicLong();
		OwnWriteFailures writes = new OwnWriteFailures(new Ticker() {
			@Override
			public long nanoTime() {
				return nanos.get();
			}

			@Override
			public long currentTimeMillis() {
				return nanos.get() / 1_000_000;
			}
		});
		Duration nextTry = Duration.ofSeconds(1);
		writes.failed("Dead-letter write", new IllegalStateException("full"), nextTry);
		writes.failed("Dead-letter write", new IllegalStateException("full"), nextTry);
		nanos.addAndGet(nextTry.multipliedBy(2).plus(OwnWriteFailures.GRACE).toNanos() - 1);
		assertThat(writes.error()).isEqualTo("Dead-letter write failed 2 times in a row: IllegalStateException: full");
		nanos.incrementAndGet();
		assertThat(writes.error()).isNull();
		writes.failed("Dead-letter write", new IllegalStateException("full"), nextTry);
		assertThat(writes.error()).startsWith("Dead-letter write failed 3 times in a row");
	}

	/**
	 * The dead letters and the retry queue may be different places (a dead-letter table that is gone,
	 * a retry table that works): a retry stored does not make good a dead letter that keeps failing,
	 * or the health would flap between {@code UP} and {@code DOWN} while dead letters cannot be stored.
	 */
	@Test
	void aRetryStoredDoesNotHideADeadLetterWriteThatKeepsFailing() {
		OwnWriteFailures writes = new OwnWriteFailures(Ticker.SYSTEM);
		Duration nextTry = Duration.ofSeconds(1);
		writes.failed("Dead-letter write", new IllegalStateException("no table"), nextTry);
		writes.failed("Dead-letter write", new IllegalStateException("no table"), nextTry);
		writes.succeeded("Retry-queue write");
		assertThat(writes.error()).isEqualTo("Dead-letter write failed 2 times in a row: IllegalStateException: no table");
		writes.failed("Dead-letter write", new IllegalStateException("no table"), nextTry);
		assertThat(writes.error()).startsWith("Dead-letter write failed 3 times in a row");
		writes.succeeded("Dead-letter write");
		assertThat(writes.error()).isNull();
	}

	private static ContainerOptions.Builder options() {
		return ContainerOptions.builder("own").topics(OwnerSteps.TOPIC).group("g").retryMaxAttempts(1)
			.retryBackoff(Duration.ofMillis(1)).retryMaxBackoff(Duration.ofMillis(1));
	}

	/** A sink that fails its first {@code failures} tries, recording what the statistics showed at each. */
	private DeadLetterSink failing(int failures) {
		AtomicInteger tries = new AtomicInteger();
		return (DeadLetter deadLetter) -> {
			this.seenAtEachTry.add(this.status.stats().sourceError());
			if (tries.incrementAndGet() <= failures) {
				throw new IllegalStateException("the disk is full");
			}
		};
	}

	private Slice slice(int messages) {
		PartitionState partition = this.steps.partition(0);
		this.steps.fetch(partition, messages);
		List<Message<byte[]>> run = partition.take(messages);
		Slice slice = partition.openBatch(0, messages - 1, List.of(run), messages, 0)[0];
		partition.startSlice();
		return slice;
	}

	private SliceRunner runner(ContainerOptions options, DeadLetterSink sink, RetryQueue queue) {
		return new SliceRunner(options, (messages) -> BatchResult.failed(messages, new IllegalStateException("poison")),
				sink, ContainerObserver.NONE, this.status, queue);
	}

}

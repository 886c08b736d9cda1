package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.testing.ContainerFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Slices longer than {@code consumer-batch-size} while the messages are cheap: a listener that
 * handles each message on its own ({@link SliceListener#handlesEachMessage()}) gets such a slice in
 * one call, a listener that takes the slice as a list in consecutive calls of at most
 * {@code consumer-batch-size}; every message once, in its ordering's order.
 */
class SliceGrowthTests {

	private static final int PARTITIONS = 3;

	private static final int PER_PARTITION = 4000;

	/** Every this many messages a list listener's call waits for the test to look at the open slices. */
	private static final int CHECKPOINT = 1000;

	private ContainerFixture fixture;

	@AfterEach
	void stop() {
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	@ParameterizedTest
	@EnumSource(Ordering.class)
	void cheapMessagesOfAListenerThatHandlesEachMessageComeInLongerSlicesUpToThePullBatchSize(Ordering ordering) {
		Recorder recorder = run(ordering, true, 0);
		assertThat(recorder.largest.get()).as("the longest slice").isGreaterThan(10).isLessThanOrEqualTo(200);
	}

	@ParameterizedTest
	@EnumSource(Ordering.class)
	void cheapMessagesOfAListListenerAreHandedOutInLongerSlicesOfCallsOfAtMostConsumerBatchSize(Ordering ordering)
			throws InterruptedException {
		this.fixture = new ContainerFixture(PARTITIONS, PER_PARTITION);
		Semaphore reached = new Semaphore(0);
		Semaphore released = new Semaphore(0);
		AtomicInteger delivered = new AtomicInteger();
		Recorder recorder = new Recorder(ordering, false, 0) {
			@Override
			public BatchResult onSlice(List<Message<byte[]>> slice) throws InterruptedException {
				// At every thousandth message the call waits until the test has seen the open slices.
				int before = delivered.getAndAdd(slice.size());
				if ((before + slice.size()) / CHECKPOINT > before / CHECKPOINT) {
					reached.release();
					released.acquire();
				}
				return super.onSlice(slice);
			}
		};
		this.fixture.start((o) -> o.ordering(ordering).threadSize(4).consumerBatchSize(10).pullBatchSize(200)
			.commitInterval(Duration.ofMillis(10)), recorder);
		// Growth follows the measured time, so it is looked for at every checkpoint, not at one moment.
		int longest = 0;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!this.fixture.isFullyCommitted() && System.nanoTime() < deadline) {
			if (reached.tryAcquire(10, TimeUnit.MILLISECONDS)) {
				long since = System.currentTimeMillis();
				await().atMost(Duration.ofSeconds(5))
					.until(() -> this.fixture.container().stats().snapshotMillis() > since);
				longest = Math.max(longest, longestOpenSlice());
				released.release();
			}
		}
		assertThat(longest).as("the longest open slice at a checkpoint").isGreaterThan(10);
		assertThat(recorder.largest.get()).as("the longest call").isEqualTo(10);
		assertThat(recorder.seen).hasSize(PARTITIONS * PER_PARTITION)
			.allSatisfy((key, count) -> assertThat(count.get()).as("deliveries of %s", key).isOne());
		assertThat(recorder.outOfOrder).as("messages out of order").isEmpty();
	}

	@Test
	void slowMessagesKeepTheSlicesOfAListenerThatHandlesEachMessageAtConsumerBatchSize() {
		// 1 ms a message, 10,000 times the 100 ns a slice may take per message at 1,000 messages.
		Recorder recorder = run(Ordering.UNORDERED, true, 1);
		assertThat(recorder.largest.get()).as("the longest slice").isLessThanOrEqualTo(10);
	}

	@Test
	void eachMessageFailsOnlyTheMessageWhoseHandlerThrows() {
		this.fixture = new ContainerFixture(1, 50);
		SliceListener listener = SliceListener.eachMessage((message) -> {
			if (message.offset() == 7) {
				throw new IllegalStateException("bad 7");
			}
		});
		assertThat(listener.handlesEachMessage()).isTrue();
		this.fixture.start((o) -> o.retryMaxAttempts(2).commitInterval(Duration.ofMillis(10)), listener);
		await().atMost(Duration.ofSeconds(20)).until(this.fixture::isFullyCommitted);
		assertThat(this.fixture.deadLetters.stored()).singleElement().satisfies((letter) -> {
			assertThat(letter.message().offset()).isEqualTo(7);
			assertThat(letter.errorMessage()).isEqualTo("bad 7");
		});
		assertThat(this.fixture.container().stats().messagesSucceeded()).isEqualTo(49);
	}

	/** The most messages a slice of an open batch holds, as the container's snapshot shows it. */
	private int longestOpenSlice() {
		return this.fixture.container().stats().partitions().stream()
			.flatMap((partition) -> partition.batches().stream())
			.flatMap((batch) -> batch.slices().stream())
			.mapToInt(BatchSnapshot.SliceSnapshot::messages)
			.max()
			.orElse(0);
	}

	/** Runs every message through a recording listener and checks once and order. */
	private Recorder run(Ordering ordering, boolean handlesEachMessage, long millisPerMessage) {
		int perPartition = (millisPerMessage > 0) ? 100 : PER_PARTITION;
		this.fixture = new ContainerFixture(PARTITIONS, perPartition);
		Recorder recorder = new Recorder(ordering, handlesEachMessage, millisPerMessage);
		this.fixture.start((o) -> o.ordering(ordering).threadSize(4).consumerBatchSize(10).pullBatchSize(200)
			.commitInterval(Duration.ofMillis(10)), recorder);
		await().atMost(Duration.ofSeconds(60)).until(this.fixture::isFullyCommitted);
		assertThat(recorder.seen).hasSize(PARTITIONS * perPartition).allSatisfy((key, count) -> assertThat(count.get())
			.as("deliveries of %s", key).isOne());
		assertThat(recorder.outOfOrder).as("messages out of order").isEmpty();
		return recorder;
	}

	/** Records every delivery, the longest slice, and messages that came before an earlier one of their key or partition. */
	private static class Recorder implements SliceListener {

		final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();

		final AtomicInteger largest = new AtomicInteger();

		final List<String> outOfOrder = new CopyOnWriteArrayList<>();

		private final Map<String, Long> lastOffset = new ConcurrentHashMap<>();

		private final Ordering ordering;

		private final boolean handlesEachMessage;

		private final long millisPerMessage;

		Recorder(Ordering ordering, boolean handlesEachMessage, long millisPerMessage) {
			this.ordering = ordering;
			this.handlesEachMessage = handlesEachMessage;
			this.millisPerMessage = millisPerMessage;
		}

		@Override
		public boolean handlesEachMessage() {
			return this.handlesEachMessage;
		}

		@Override
		public BatchResult onSlice(List<Message<byte[]>> slice) throws InterruptedException {
			this.largest.accumulateAndGet(slice.size(), Math::max);
			for (Message<byte[]> message : slice) {
				if (this.millisPerMessage > 0) {
					Thread.sleep(this.millisPerMessage); // the work of a slow message
				}
				this.seen.computeIfAbsent(message.topicPartition() + "@" + message.offset(), (k) -> new AtomicInteger())
					.incrementAndGet();
				String orderedBy = switch (this.ordering) {
					case KEY -> message.topicPartition() + "/" + message.key();
					case PARTITION -> message.topicPartition().toString();
					case UNORDERED -> null;
				};
				if (orderedBy != null) {
					Long before = this.lastOffset.put(orderedBy, message.offset());
					if (before != null && before >= message.offset()) {
						this.outOfOrder.add(message.topicPartition() + "@" + message.offset() + " after " + before);
					}
				}
			}
			return BatchResult.success();
		}

	}

}

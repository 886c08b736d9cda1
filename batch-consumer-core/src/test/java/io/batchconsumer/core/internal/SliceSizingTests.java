package io.batchconsumer.core.internal;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.SliceListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The length of a slice: {@code consumer-batch-size} until the listener was measured, then 100 µs
 * of its measured time per message, between {@code consumer-batch-size} and {@code pull-batch-size},
 * back down as the work gets slower; a list listener's calls take at most {@code consumer-batch-size}
 * of it, a listener that handles each message takes it whole. And when the owner thread is the bound:
 * while a worker's time for a message is less than half the owner's.
 */
class SliceSizingTests {

	private final ContainerOptions options = ContainerOptions.builder("sizing").topics("t").group("g")
		.consumerBatchSize(10).pullBatchSize(500).build();

	@Test
	void aListenerThatHandlesEachMessageGrowsWithCheapMessagesUpToThePullBatchSize() {
		SliceSizing sizing = new SliceSizing(SliceListener.eachMessage((message) -> {
		}));
		assertThat(sizing.maxSliceSize(this.options)).as("before any completion").isEqualTo(10);
		sizing.completed(10, 4_000); // 400 ns a message: 250 fit in 100 µs
		assertThat(sizing.maxSliceSize(this.options)).isEqualTo(250);
		sizing.completed(250, 25_000); // 100 ns: 1,000 would fit
		assertThat(sizing.maxSliceSize(this.options)).isEqualTo(275); // average 363 ns
		for (int i = 0; i < 40; i++) {
			sizing.completed(250, 25_000);
		}
		assertThat(sizing.maxSliceSize(this.options)).as("capped at pull-batch-size").isEqualTo(500);
	}

	@Test
	void slicesShrinkBackToConsumerBatchSizeAsTheWorkGetsSlower() {
		SliceSizing sizing = new SliceSizing(SliceListener.eachMessage((message) -> {
		}));
		sizing.completed(100, 10_000);
		assertThat(sizing.maxSliceSize(this.options)).isEqualTo(500);
		for (int i = 0; i < 40; i++) {
			sizing.completed(10, 10_000_000); // 1 ms a message
		}
		assertThat(sizing.maxSliceSize(this.options)).isEqualTo(10);
	}

	@Test
	void aListenerThatTakesTheSliceAsAListGrowsTooButEachOfItsCallsTakesAtMostConsumerBatchSize() {
		SliceSizing sizing = new SliceSizing((slice) -> BatchResult.success());
		assertThat(sizing.maxSliceSize(this.options)).as("before any completion").isEqualTo(10);
		sizing.completed(10, 4_000);
		assertThat(sizing.maxSliceSize(this.options)).isEqualTo(250);
		assertThat(sizing.callSize(this.options)).isEqualTo(10);
	}

	@Test
	void theOwnerIsTheBoundOnceBothAreMeasuredAndAWorkerTakesLessThanHalfTheOwnersTimeForAMessage() {
		SliceSizing sizing = new SliceSizing(SliceListener.eachMessage((message) -> {
		}));
		sizing.completed(1000, 100_000); // 100 ns a message on a worker
		assertThat(sizing.ownerBound()).as("the owner not measured yet").isFalse();
		sizing.ownerSpent(1_000_000, SliceSizing.OWNER_WINDOW_MESSAGES - 1, 0); // the owner's CPU time so far
		assertThat(sizing.ownerBound()).as("the window is not full").isFalse();
		sizing.ownerSpent(1_000_000, 1, 1); // 1 ms for 4096 messages: 244 ns a message
		assertThat(sizing.ownerBound()).isTrue();
		for (int i = 0; i < 40; i++) {
			sizing.completed(1000, 150_000); // 150 ns: more than half the owner's 244
		}
		assertThat(sizing.ownerBound()).isFalse();
	}

	@Test
	void aWindowLongerThanASecondForgetsTheOwnersCost() {
		SliceSizing sizing = new SliceSizing(SliceListener.eachMessage((message) -> {
		}));
		sizing.completed(1000, 100_000);
		sizing.ownerSpent(4_096_000, SliceSizing.OWNER_WINDOW_MESSAGES, 0); // 1,000 ns a message
		assertThat(sizing.ownerBound()).isTrue();
		sizing.ownerSpent(4_146_000, 10, 1);
		assertThat(sizing.ownerBound()).as("within the second").isTrue();
		sizing.ownerSpent(4_196_000, 10, 1 + SliceSizing.OWNER_WINDOW_NANOS + 1);
		assertThat(sizing.ownerBound()).as("a few messages a second: the owner is not the bound").isFalse();
	}

	@Test
	void anOwnerThatIsBusyLessThanHalfTheTimeIsNotTheBoundHoweverDearItsMessages() {
		SliceSizing sizing = new SliceSizing(SliceListener.eachMessage((message) -> {
		}));
		sizing.completed(1000, 100_000); // 100 ns a message on a worker
		// 1,000 ns a message, 4 ms of CPU time in a window of 10 ms: the owner waits for messages
		sizing.ownerSpent(4_096_000, SliceSizing.OWNER_WINDOW_MESSAGES, 10_000_000);
		assertThat(sizing.ownerBound()).as("busy 41 % of the window").isFalse();
		sizing.ownerSpent(8_192_000, SliceSizing.OWNER_WINDOW_MESSAGES, 16_000_000);
		assertThat(sizing.ownerBound()).as("busy 68 % of the next").isTrue();
		sizing.ownerSpent(12_288_000, SliceSizing.OWNER_WINDOW_MESSAGES, 26_000_000);
		assertThat(sizing.ownerBound()).as("the last window decides").isFalse();
	}

	@Test
	void theFirstWindowBeginsWhereTheOwnersLoopStartedWhateverTheClocksOrigin() {
		SliceSizing sizing = new SliceSizing(SliceListener.eachMessage((message) -> {
		}));
		sizing.completed(1000, 100_000); // 100 ns a message on a worker
		long start = -5_000_000_000L; // System.nanoTime() may be negative
		sizing.ownerStarts(0, start);
		// 1,000 ns a message, 4 ms of CPU time in 100 ms: the owner waits for messages
		sizing.ownerSpent(4_096_000, SliceSizing.OWNER_WINDOW_MESSAGES, start + 100_000_000);
		assertThat(sizing.ownerBound()).as("busy 4 % of its first window").isFalse();
	}

	@Test
	void aListenerThatHandlesEachMessageTakesTheWholeSliceInOneCall() {
		SliceSizing sizing = new SliceSizing(SliceListener.eachMessage((message) -> {
		}));
		assertThat(sizing.callSize(this.options)).isEqualTo(Integer.MAX_VALUE);
	}

}

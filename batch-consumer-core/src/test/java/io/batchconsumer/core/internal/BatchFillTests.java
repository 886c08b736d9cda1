package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batches that wait to fill ({@code consumer-batch-min-size}, {@code consumer-batch-max-wait}) and
 * slices bounded by bytes ({@code consumer-batch-max-bytes}), driven by hand with a manual clock.
 */
class BatchFillTests {

	private static final Duration MAX_WAIT = Duration.ofMillis(200);

	private static DispatchHarness waitingFor(int minSize) {
		return new DispatchHarness(DispatchHarness.options().consumerBatchMinSize(minSize).consumerBatchMaxWait(MAX_WAIT)
			.build());
	}

	@Test
	void aBatchUnderTheMinimumWaitsHoldingNoWorkerAndCountingInTheBacklog() {
		DispatchHarness harness = waitingFor(5);
		harness.arrive(3, 10);
		harness.dispatch();

		assertThat(harness.calls).isEmpty();
		assertThat(harness.dispatcher.busy()).as("no worker holds the waiting batch").isZero();
		assertThat(harness.partition.backlog()).isEqualTo(3);
		assertThat(harness.partition.openBatches()).as("not in the ledger: the watermark is as before").isZero();
		assertThat(harness.untilHeldBackIsDue()).as("the owner sleeps until the wait runs out").isEqualTo(MAX_WAIT);
	}

	@Test
	void theBatchGoesAsSoonAsTheMinimumArrived() {
		DispatchHarness harness = waitingFor(5);
		harness.arrive(3, 10);
		harness.dispatch();
		harness.ticker.advance(Duration.ofMillis(20));
		harness.arrive(2, 10);
		harness.dispatch();

		assertThat(harness.calls).hasSize(1);
		assertThat(harness.calls.get(0)).extracting(Message::offset).containsExactly(0L, 1L, 2L, 3L, 4L);
	}

	@Test
	void aBatchUnderTheMinimumGoesWhenItsOldestMessageWaitedTheMaximum() {
		DispatchHarness harness = waitingFor(5);
		harness.arrive(2, 10);
		harness.dispatch();
		harness.ticker.advance(Duration.ofMillis(150));
		harness.arrive(1, 10);
		harness.dispatchAfter(Duration.ofMillis(49));
		assertThat(harness.calls).as("1 ms before the first message waited 200 ms").isEmpty();
		assertThat(harness.untilHeldBackIsDue()).isEqualTo(Duration.ofMillis(1));

		harness.dispatchAfter(Duration.ofMillis(1));
		assertThat(harness.calls).hasSize(1);
		assertThat(harness.calls.get(0)).hasSize(3);
	}

	@Test
	void theWaitStartsAgainOnceABatchEmptiedTheBuffer() {
		DispatchHarness harness = waitingFor(5);
		harness.arrive(5, 10);
		harness.dispatch();
		harness.completeAll();
		harness.ticker.advance(Duration.ofSeconds(5));
		harness.arrive(1, 10);
		harness.dispatch();

		assertThat(harness.calls).as("the new message waits its own 200 ms").hasSize(1);
		assertThat(harness.untilHeldBackIsDue()).isEqualTo(MAX_WAIT);
	}

	@Test
	void aPartitionThatFlowControlStoppedDoesNotWaitForMessagesThatCannotCome() {
		DispatchHarness harness = waitingFor(5);
		harness.arrive(3, 10);
		harness.partition.flow().pause(harness.ticker.nanoTime(), "count");
		harness.dispatch();

		assertThat(harness.calls).hasSize(1);
	}

	@Test
	void aRevokeEndsTheWaitAndTheWaitingMessagesAreDeliveredAgainNotCommitted() {
		DispatchHarness harness = waitingFor(5);
		harness.arrive(3, 10);
		harness.dispatch();
		harness.partition.startDraining();
		harness.dispatchAfter(MAX_WAIT);

		assertThat(harness.calls).isEmpty();
		assertThat(harness.partition.backlog()).isZero();
		assertThat(harness.partition.openBatches()).as("nothing in the ledger").isZero();
		assertThat(harness.untilHeldBackIsDue()).as("nothing to wake up for").isNull();
	}

	@Test
	void aFullBufferIsCutIntoSlicesOfAtLeastTheMinimum() {
		DispatchHarness harness = new DispatchHarness(DispatchHarness.options().ordering(Ordering.UNORDERED)
			.consumerBatchMinSize(8).consumerBatchMaxWait(MAX_WAIT).build());
		harness.arrive(25, 10);
		harness.dispatch();

		assertThat(harness.calls).extracting(List::size).allSatisfy((size) -> assertThat(size).isGreaterThanOrEqualTo(8));
		assertThat(harness.delivered()).isGreaterThanOrEqualTo(16);
	}

	@Test
	void theByteBoundEndsTheWaitForTheMinimum() {
		// Each message is 10 + 2 + 16 = 28 bytes: three reach 84.
		DispatchHarness harness = new DispatchHarness(DispatchHarness.options().consumerBatchMinSize(10)
			.consumerBatchMaxWait(MAX_WAIT).consumerBatchMaxBytes(84).build());
		harness.arrive(2, 10);
		harness.dispatch();
		assertThat(harness.calls).isEmpty();

		harness.arrive(1, 10);
		harness.dispatch();
		assertThat(harness.calls).hasSize(1);
		assertThat(harness.calls.get(0)).hasSize(3);
	}

	@ParameterizedTest
	@EnumSource(Ordering.class)
	void noCallHoldsMoreBytesThanTheBoundAndALargerMessageComesAlone(Ordering ordering) {
		DispatchHarness harness = new DispatchHarness(DispatchHarness.options().ordering(ordering)
			.consumerBatchMaxBytes(100).build());
		harness.arrive(30, 10); // 28 bytes each
		harness.arrive(1, 200); // 218 bytes
		harness.arrive(9, 10);
		for (int round = 0; round < 40 && harness.delivered() < 40; round++) {
			harness.dispatch();
			harness.completeAll();
		}

		assertThat(harness.delivered()).isEqualTo(40);
		for (List<Message<byte[]>> call : harness.calls) {
			int bytes = call.stream().mapToInt(Message::serializedSize).sum();
			assertThat(bytes <= 100 || call.size() == 1).as("call of %d bytes in %d messages", bytes, call.size()).isTrue();
			assertThat(call.size()).isLessThanOrEqualTo(10);
		}
	}

}

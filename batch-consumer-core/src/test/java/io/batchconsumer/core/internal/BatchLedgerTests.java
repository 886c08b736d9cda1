package io.batchconsumer.core.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ledger driven by hand, one step at a time.
 */
class BatchLedgerTests {

	private final BatchLedger ledger = new BatchLedger();

	@Test
	void commitsOnlyThePrefixOfFinishedBatches() {
		long first = this.ledger.open(0, 9, 2, 0);
		long second = this.ledger.open(10, 19, 1, 0);
		long third = this.ledger.open(20, 29, 3, 0);
		assertThat(this.ledger.advance()).isEqualTo(-1);

		assertThat(this.ledger.complete(second, 0)).isTrue();
		assertThat(this.ledger.advance()).as("second finished, first open").isEqualTo(-1);

		assertThat(this.ledger.complete(first, 1)).isFalse();
		assertThat(this.ledger.advance()).as("one slice of first still open").isEqualTo(-1);

		assertThat(this.ledger.complete(first, 0)).isTrue();
		assertThat(this.ledger.advance()).as("first and second finished").isEqualTo(20);
		assertThat(this.ledger.openBatches()).isEqualTo(1);

		this.ledger.complete(third, 2);
		this.ledger.complete(third, 0);
		assertThat(this.ledger.advance()).isEqualTo(20);
		this.ledger.complete(third, 1);
		assertThat(this.ledger.advance()).isEqualTo(30);
		assertThat(this.ledger.openBatches()).isZero();
		assertThat(this.ledger.lowestOpenOffset()).isEqualTo(-1);
	}

	@Test
	void scrambledCompletionOrderMovesTheWatermarkOnlyOverContiguousFinishedBatches() {
		long[] ids = new long[6];
		for (int i = 0; i < 6; i++) {
			ids[i] = this.ledger.open(i * 5L, i * 5L + 4, 1, 0);
		}
		int[] order = { 3, 5, 0, 4, 2, 1 };
		long[] expected = { -1, -1, 5, 5, 5, 30 };
		for (int step = 0; step < order.length; step++) {
			this.ledger.complete(ids[order[step]], 0);
			assertThat(this.ledger.advance()).as("after completing batch %d", order[step]).isEqualTo(expected[step]);
		}
	}

	@Test
	void aRepeatedCompletionChangesNothing() {
		long id = this.ledger.open(0, 3, 2, 0);
		assertThat(this.ledger.complete(id, 0)).isFalse();
		assertThat(this.ledger.complete(id, 0)).isFalse();
		assertThat(this.ledger.advance()).isEqualTo(-1);
		assertThat(this.ledger.isOutstanding(id, 1)).isTrue();
		assertThat(this.ledger.complete(id, 1)).isTrue();
		assertThat(this.ledger.complete(id, 1)).isFalse();
		assertThat(this.ledger.advance()).isEqualTo(4);
	}

	@Test
	void completionsOfUnknownOrDroppedBatchesAreIgnored() {
		long id = this.ledger.open(0, 0, 1, 0);
		this.ledger.complete(id, 0);
		this.ledger.advance();
		assertThat(this.ledger.complete(id, 0)).isFalse();
		assertThat(this.ledger.complete(42, 0)).isFalse();
		assertThat(this.ledger.complete(-1, 0)).isFalse();
		long next = this.ledger.open(1, 1, 1, 0);
		assertThat(this.ledger.complete(next, 5)).as("slice out of range").isFalse();
		assertThat(this.ledger.advance()).isEqualTo(1);
	}

	@Test
	void batchesThatGoBackAreRejected() {
		this.ledger.open(10, 19, 1, 0);
		assertThatIllegalArgumentException().isThrownBy(() -> this.ledger.open(15, 25, 1, 0))
			.withMessageContaining("may not go back");
		assertThatIllegalArgumentException().isThrownBy(() -> this.ledger.open(19, 25, 1, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> this.ledger.open(30, 29, 1, 0))
			.withMessageContaining("not a range");
		assertThatIllegalArgumentException().isThrownBy(() -> this.ledger.open(30, 31, 0, 0))
			.withMessageContaining("at least one slice");
	}

	@Test
	void aWatermarkNeverGoesBackAndGapsBetweenBatchesAreAllowed() {
		long a = this.ledger.open(0, 4, 1, 0);
		long b = this.ledger.open(10, 14, 1, 0); // offsets 5..9 compacted away
		this.ledger.complete(b, 0);
		this.ledger.complete(a, 0);
		assertThat(this.ledger.advance()).isEqualTo(15);
		assertThatIllegalArgumentException().isThrownBy(() -> this.ledger.open(12, 20, 1, 0));
		assertThat(this.ledger.watermark()).isEqualTo(15);
	}

	@Test
	void reportsTheOldestOpenBatch() {
		this.ledger.open(3, 5, 1, 111);
		long second = this.ledger.open(6, 8, 1, 222);
		assertThat(this.ledger.lowestOpenOffset()).isEqualTo(3);
		assertThat(this.ledger.oldestOpenNanos()).isEqualTo(111);
		this.ledger.complete(second, 0);
		this.ledger.advance();
		assertThat(this.ledger.oldestOpenNanos()).isEqualTo(111);
	}

}

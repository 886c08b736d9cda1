package io.batchconsumer.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.batchconsumer.core.internal.BatchLedger;

/**
 * One batch's life in the ledger: open it, complete its slices (last first, so the batch finishes
 * on the last call), advance. {@code window} batches stay open behind it, and the batch completed
 * is the one {@code window} ids back, so {@code complete} searches past the open window the way a
 * slow oldest batch makes it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BatchLedgerBenchmark {

	@Param({ "1", "16" })
	int slices;

	@Param({ "1", "64" })
	int window;

	private BatchLedger ledger;

	private long nextOffset;

	@Setup
	public void setUp() {
		this.ledger = new BatchLedger();
		this.nextOffset = 0;
		for (int i = 0; i < this.window - 1; i++) {
			openOne();
		}
	}

	private long openOne() {
		long id = this.ledger.open(this.nextOffset, this.nextOffset + 9, this.slices, 0);
		this.nextOffset += 10;
		return id;
	}

	/**
	 * Opens a batch, finishes the oldest open one, advances.
	 * @return the watermark
	 */
	@Benchmark
	public long openCompleteAdvance() {
		long newest = openOne();
		long oldest = newest - this.window + 1;
		for (int slice = this.slices - 1; slice >= 0; slice--) {
			this.ledger.complete(oldest, slice);
		}
		return this.ledger.advance();
	}

	/**
	 * Finishes the newest batch while the oldest stays open, then the oldest: the search walks the
	 * whole window, and advance drops two batches.
	 * @return the watermark
	 */
	@Benchmark
	public long completeNewestFirst() {
		long newest = openOne();
		long second = openOne();
		for (int slice = 0; slice < this.slices; slice++) {
			this.ledger.complete(second, slice);
		}
		long oldest = newest - this.window + 1;
		for (int slice = 0; slice < this.slices; slice++) {
			this.ledger.complete(oldest, slice);
			this.ledger.complete(oldest + 1, slice);
		}
		return this.ledger.advance();
	}

}

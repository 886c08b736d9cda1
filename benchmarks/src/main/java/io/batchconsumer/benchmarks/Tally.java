package io.batchconsumer.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counts the records one run processed: which ones (a bit per record index, so duplicates are
 * seen), when the first and the last distinct one were done, and the latency of each.
 *
 * <p>Latency: every record is in the topic before the run starts, so the time since a record was
 * created is only the age of the backlog. The latency recorded is the time from the moment the
 * contender delivered its first record (its group join done) to the moment this record was
 * processed: a record's wait in front of a consumer that starts on a full backlog.
 *
 * <p>Threading: {@link #processed} is called by any number of worker threads; the bits are
 * atomic, the counters {@link LongAdder}s or atomics, the histogram a wait-free {@link Recorder}.
 */
public final class Tally {

	private final int records;

	private final AtomicLongArray seen;

	private final AtomicLong distinct = new AtomicLong();

	private final LongAdder duplicates = new LongAdder();

	private final AtomicLong firstNanos = new AtomicLong();

	/** Written once by the thread that processed the last distinct record, read after {@link #done}. */
	private volatile long lastNanos;

	private final Recorder latency = new Recorder(3);

	private final CountDownLatch done = new CountDownLatch(1);

	/**
	 * A tally for {@code records} records with indexes 0 to records − 1.
	 * @param records the records expected
	 */
	public Tally(int records) {
		this.records = records;
		this.seen = new AtomicLongArray((records + 63) / 64);
	}

	/**
	 * Records that a record was processed.
	 * @param index its index
	 */
	public void processed(long index) {
		long now = System.nanoTime();
		if (this.firstNanos.get() == 0) {
			this.firstNanos.compareAndSet(0, now);
		}
		int word = (int) (index >>> 6);
		long bit = 1L << (index & 63);
		long old;
		do {
			old = this.seen.get(word);
			if ((old & bit) != 0) {
				this.duplicates.increment();
				return;
			}
		}
		while (!this.seen.compareAndSet(word, old, old | bit));
		this.latency.recordValue(Math.max(0, (now - this.firstNanos.get()) / 1_000));
		if (this.distinct.incrementAndGet() == this.records) {
			this.lastNanos = now;
			this.done.countDown();
		}
	}

	/**
	 * Waits for every record.
	 * @param timeout the longest wait
	 * @return whether every record was processed
	 * @throws InterruptedException when interrupted
	 */
	public boolean await(Duration timeout) throws InterruptedException {
		return this.done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** @return distinct records processed */
	public long distinct() {
		return this.distinct.get();
	}

	/** @return records processed again */
	public long duplicates() {
		return this.duplicates.sum();
	}

	/** @return when the first record was processed, 0 before */
	public long firstNanos() {
		return this.firstNanos.get();
	}

	/** @return when the last distinct record was processed, 0 before */
	public long lastNanos() {
		return this.lastNanos;
	}

	/** @return the latencies so far, in microseconds (takes them out of the recorder) */
	public Histogram latencyMicros() {
		return this.latency.getIntervalHistogram();
	}

}

package io.batchconsumer.benchmarks;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

/**
 * Counts the records one run processed: which ones (a bit per record index, so duplicates are
 * seen), when the first and the last distinct one were done, and the latency of each.
 *
 * <p>Latency: every record is in the topic before the run starts, so the time since a record was
 * created is only the age of the backlog. The latency recorded is the time from the moment the
 * contender delivered its first record (its group join done) to the moment this record was
 * processed: a record's wait in front of a consumer that starts on a full backlog.
 *
 * <p>Threading: {@link #processed} is called by any number of worker threads. The bits are atomic,
 * laid out per partition when the records are spread round-robin ({@link #Tally(int, int)});
 * everything else a record updates is the calling thread's own (a {@link Lane}: its count, its
 * latest time, its histogram), so a contender whose threads process records pays what a
 * single-threaded one pays per record, not a write to lines shared with its other threads. (A shared
 * counter and one shared histogram, at zero work, cost four workers 0.08–0.11 µs of CPU per record,
 * as much as all else they did, in compare-and-set loops on the histogram's maximum, the recorder's
 * phaser and the counter; one thread paid none of it.) {@link #await} looks at the counts every
 * millisecond; the last record's time is the latest of the lanes', so it is exact.
 */
public final class Tally {

	private static final long LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final int records;

	private final int stride;

	/** Bits per partition in {@link #seen}. */
	private final int perPartition;

	/** A bit per record, the records of each partition together, in order. */
	private final AtomicLongArray seen;

	private final LongAdder duplicates = new LongAdder();

	private final AtomicLong firstNanos = new AtomicLong();

	private final Queue<Lane> lanes = new ConcurrentLinkedQueue<>();

	private final ThreadLocal<Lane> lane = ThreadLocal.withInitial(() -> {
		Lane created = new Lane();
		this.lanes.add(created);
		return created;
	});

	/**
	 * A tally for {@code records} records with indexes 0 to records − 1.
	 * @param records the records expected
	 */
	public Tally(int records) {
		this(records, 1);
	}

	/**
	 * A tally for {@code records} records with indexes 0 to records − 1, spread round-robin over
	 * {@code stride} partitions (record {@code i} in partition {@code i % stride}). Each partition's
	 * records get bits of their own, in order, so threads that work on different partitions, or on
	 * different stretches of one, do not write the same words of the bit set.
	 * @param records the records expected
	 * @param stride the partitions
	 */
	public Tally(int records, int stride) {
		this.records = records;
		this.stride = stride;
		this.perPartition = (records + stride - 1) / stride;
		this.seen = new AtomicLongArray((int) (((long) this.perPartition * stride + 63) / 64));
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
		long position = (index % this.stride) * this.perPartition + index / this.stride;
		int word = (int) (position >>> 6);
		long bit = 1L << (position & 63);
		long old;
		do {
			old = this.seen.get(word);
			if ((old & bit) != 0) {
				this.duplicates.increment();
				return;
			}
		}
		while (!this.seen.compareAndSet(word, old, old | bit));
		this.lane.get().distinct(now, Math.max(0, (now - this.firstNanos.get()) / 1_000));
	}

	/**
	 * Waits for every record.
	 * @param timeout the longest wait
	 * @return whether every record was processed
	 * @throws InterruptedException when interrupted
	 */
	public boolean await(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (distinct() < this.records) {
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return false;
			}
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			LockSupport.parkNanos(Math.min(left, LOOK_NANOS));
		}
		return true;
	}

	/** @return distinct records processed */
	public long distinct() {
		long distinct = 0;
		for (Lane each : this.lanes) {
			distinct += each.distinct.get();
		}
		return distinct;
	}

	/** @return records processed again */
	public long duplicates() {
		return this.duplicates.sum();
	}

	/** @return when the first record was processed, 0 before */
	public long firstNanos() {
		return this.firstNanos.get();
	}

	/** @return when the last distinct record was processed (the latest of the threads'), 0 before */
	public long lastNanos() {
		long last = 0;
		for (Lane each : this.lanes) {
			if (each.distinct.get() > 0) { // read first: the lane's time is written before its count
				last = (last == 0) ? each.lastNanos : Math.max(last, each.lastNanos);
			}
		}
		return last;
	}

	/**
	 * The latencies of the records processed so far, in microseconds; exact once every record was
	 * processed ({@link #await} returned {@code true}) or the threads stopped.
	 * @return the histogram of every thread's latencies
	 */
	public Histogram latencyMicros() {
		Histogram all = new Histogram(3);
		for (Lane each : this.lanes) {
			if (each.distinct.get() > 0) {
				all.add(each.latency);
			}
		}
		return all;
	}

	/**
	 * What one thread recorded, written by that thread only. Its count is stored with release
	 * semantics after the time and the histogram, so a reader that reads the count first sees them.
	 */
	private static final class Lane {

		private final Histogram latency = new Histogram(3);

		private final AtomicLong distinct = new AtomicLong();

		private long lastNanos;

		void distinct(long now, long latencyMicros) {
			this.latency.recordValue(latencyMicros);
			this.lastNanos = now;
			this.distinct.lazySet(this.distinct.get() + 1); // one writer
		}

	}

}

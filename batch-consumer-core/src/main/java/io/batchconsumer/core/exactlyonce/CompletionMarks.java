package io.batchconsumer.core.exactlyonce;

import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The completion marks of one partition for one claim of it (one owner epoch): those at or above
 * its committed position loaded from the completion table when the partition is claimed, then added
 * to after each committed delivery, and dropped below each new committed position. Every offset
 * below the committed position counts as marked: it was finished before it was committed.
 *
 * <p>A claim serves one partition epoch of the engine ({@link #partitionEpoch}): bound on the owner
 * thread when that epoch starts, so a delivery of an earlier epoch never uses the marks, nor the owner
 * epoch, of a later one.
 *
 * <p>A delivery whose transaction failed in its {@code COMMIT} may have committed or not: its rows
 * are kept as <em>uncertain</em> until the marks are read again. While they are, a later delivery
 * that marks an offset in an uncertain row's range writes it under that row's key, so that, when the
 * uncertain one did commit, the two collide on the table's primary key instead of both committing.
 *
 * <p>Threading: thread-safe; workers read and add, the owner thread loads, binds and drops.
 */
final class CompletionMarks {

	/** No partition epoch bound yet: the claim was made for an epoch that is about to start. */
	static final long UNBOUND = -1;

	private final ConcurrentSkipListSet<Long> offsets = new ConcurrentSkipListSet<>();

	/** Uncertain rows: key (first offset) to {least offset, greatest offset}. */
	private final NavigableMap<Long, long[]> uncertain = new ConcurrentSkipListMap<>();

	/** The committed position: every offset below it is finished. */
	private volatile long floor;

	private final long ownerEpoch;

	/** The engine's epoch of the partition these marks serve; written by the owner thread once. */
	private volatile long partitionEpoch;

	/** Set when an uncertain outcome could not be read back: the next delivery reads the marks first. */
	private volatile boolean stale;

	/**
	 * No marks yet.
	 * @param floor the committed position, or {@code -1} when none is known
	 * @param ownerEpoch the owner epoch this instance claimed for the partition ({@link OwnerFence})
	 * @param partitionEpoch the engine's epoch these marks serve, or {@link #UNBOUND}
	 */
	CompletionMarks(long floor, long ownerEpoch, long partitionEpoch) {
		this.floor = floor;
		this.ownerEpoch = ownerEpoch;
		this.partitionEpoch = partitionEpoch;
	}

	/** The owner epoch every delivery of the partition checks before it commits. */
	long epoch() {
		return this.ownerEpoch;
	}

	long partitionEpoch() {
		return this.partitionEpoch;
	}

	void bind(long epoch) {
		this.partitionEpoch = epoch;
	}

	/** The committed position, or {@code -1} when none is known. */
	long floor() {
		return this.floor;
	}

	boolean isMarked(long offset) {
		return offset < this.floor || this.offsets.contains(offset);
	}

	void addAll(Collection<Long> marked) {
		for (Long offset : marked) {
			if (offset >= this.floor) {
				this.offsets.add(offset);
			}
		}
	}

	/** Forgets marks below a committed position; they can never be needed again. */
	void dropBelow(long position) {
		if (position > this.floor) {
			this.floor = position;
		}
		this.offsets.headSet(position).clear();
	}

	List<Long> offsets() {
		return List.copyOf(this.offsets);
	}

	int size() {
		return this.offsets.size();
	}

	/**
	 * The rows that mark these offsets: an offset inside an uncertain row's range goes to a row under
	 * that row's key.
	 * @param sorted the offsets, ascending, without repeats
	 * @return the rows
	 */
	List<OffsetRuns.Row> rowsOf(List<Long> sorted) {
		return OffsetRuns.rows(sorted, this.uncertain);
	}

	/** Rows whose transaction committed: their offsets are marked and their keys are no longer uncertain. */
	void committed(List<OffsetRuns.Row> rows, Collection<Long> marked) {
		addAll(marked);
		rows.forEach((row) -> this.uncertain.remove(row.first()));
	}

	/** Rows whose transaction may or may not have committed. */
	void uncertain(List<OffsetRuns.Row> rows) {
		for (OffsetRuns.Row row : rows) {
			this.uncertain.merge(row.first(), new long[] { row.least(), row.last() },
					(old, now) -> new long[] { Math.min(old[0], now[0]), Math.max(old[1], now[1]) });
		}
	}

	/**
	 * After the marks were read again: an uncertain row whose least offset is marked did commit; the
	 * others stay uncertain (not committed, or not visible yet).
	 */
	void resolveUncertain() {
		this.uncertain.values().removeIf((range) -> isMarked(range[0]));
		this.stale = false;
	}

	boolean isStale() {
		return this.stale;
	}

	void stale() {
		this.stale = true;
	}

}

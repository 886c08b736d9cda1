package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Iterator;

/**
 * The ledger of one partition's thread batches: which are open, which are finished, and how far
 * the partition may be committed (PPDai PMQ's rule).
 *
 * <p>Glossary:
 * <ul>
 * <li><b>thread batch</b> — a contiguous run of a partition's messages handed to the worker pool at
 * once, split into slices; batches of a partition get increasing ids and cover increasing offsets.</li>
 * <li><b>slice</b> — the part of a batch that one worker processes in one listener call.</li>
 * <li><b>finished</b> — a batch whose every slice succeeded or was dead-lettered.</li>
 * <li><b>watermark</b> — the committable position: the end (last offset + 1) of the last batch in
 * the contiguous run of finished batches starting at the oldest open one. It never goes back and
 * never passes a message that is not finished.</li>
 * <li><b>epoch</b> — a ledger lives for one assignment of its partition (a new one after a
 * revoke, a loss or a seek); completions of an older epoch never reach a newer ledger.</li>
 * </ul>
 *
 * <p>Threading: not thread-safe; owned by the container's owner thread.
 */
public final class BatchLedger {

	private final ArrayDeque<Entry> open = new ArrayDeque<>();

	private long nextId;

	private long lastOffset = -1;

	private long watermark = -1;

	/**
	 * Opens a batch over {@code [firstOffset, lastOffset]}.
	 * @param firstOffset its first offset
	 * @param lastOffset its last offset
	 * @param slices how many slices it was split into, 1 or more
	 * @param openedNanos when it was opened ({@link System#nanoTime()} scale)
	 * @return the batch id, increasing
	 * @throws IllegalArgumentException when the batch does not come after every batch already opened
	 */
	public long open(long firstOffset, long lastOffset, int slices, long openedNanos) {
		if (firstOffset > lastOffset || firstOffset < 0) {
			throw new IllegalArgumentException("batch offsets [" + firstOffset + ", " + lastOffset + "] are not a range");
		}
		if (firstOffset <= this.lastOffset || firstOffset < this.watermark) {
			throw new IllegalArgumentException("batch starting at " + firstOffset + " does not follow offset "
					+ Math.max(this.lastOffset, this.watermark - 1) + ": offsets may not go back");
		}
		if (slices < 1) {
			throw new IllegalArgumentException("a batch has at least one slice but was given " + slices);
		}
		long id = this.nextId++;
		this.open.addLast(new Entry(id, firstOffset, lastOffset, slices, openedNanos));
		this.lastOffset = lastOffset;
		return id;
	}

	/**
	 * Marks a slice finished.
	 * @param batchId the batch
	 * @param slice the slice index within it
	 * @return {@code true} when this completion finished the batch; {@code false} when the batch is
	 *         not finished yet, or the completion is a repeat or names no open batch
	 */
	public boolean complete(long batchId, int slice) {
		Entry entry = find(batchId);
		if (entry == null || slice < 0 || slice >= entry.slices || entry.done.get(slice)) {
			return false;
		}
		entry.done.set(slice);
		return entry.isFinished();
	}

	/**
	 * Whether the slice is open and not finished.
	 * @param batchId the batch
	 * @param slice the slice index
	 * @return {@code true} while the slice is outstanding
	 */
	public boolean isOutstanding(long batchId, int slice) {
		Entry entry = find(batchId);
		return entry != null && slice >= 0 && slice < entry.slices && !entry.done.get(slice);
	}

	/**
	 * Drops the finished prefix and moves the watermark to its end.
	 * @return the watermark after the move, or -1 when nothing was ever finished
	 */
	public long advance() {
		while (!this.open.isEmpty() && this.open.peekFirst().isFinished()) {
			this.watermark = this.open.pollFirst().lastOffset + 1;
		}
		return this.watermark;
	}

	/**
	 * The committable position (next offset to read) as of the last {@link #advance()}.
	 * @return the watermark, or -1 when nothing was finished yet
	 */
	public long watermark() {
		return this.watermark;
	}

	/**
	 * Batches not yet dropped by {@link #advance()}.
	 * @return the count
	 */
	public int openBatches() {
		return this.open.size();
	}

	/**
	 * The first offset of the oldest open batch.
	 * @return the offset, or -1 when none is open
	 */
	public long lowestOpenOffset() {
		return this.open.isEmpty() ? -1 : this.open.peekFirst().firstOffset;
	}

	/**
	 * When the oldest open batch was opened.
	 * @return its {@link System#nanoTime()} stamp, or -1 when none is open
	 */
	public long oldestOpenNanos() {
		return this.open.isEmpty() ? -1 : this.open.peekFirst().openedNanos;
	}

	private Entry find(long batchId) {
		if (this.open.isEmpty() || batchId < this.open.peekFirst().id || batchId > this.open.peekLast().id) {
			return null;
		}
		// Ids are consecutive from the oldest open one, but a scan from the front is short in practice:
		// completions cluster at the head, and the open window is bounded by flow control.
		Iterator<Entry> entries = this.open.iterator();
		while (entries.hasNext()) {
			Entry entry = entries.next();
			if (entry.id == batchId) {
				return entry;
			}
		}
		return null;
	}

	private static final class Entry {

		final long id;

		final long firstOffset;

		final long lastOffset;

		final int slices;

		final long openedNanos;

		final BitSet done;

		Entry(long id, long firstOffset, long lastOffset, int slices, long openedNanos) {
			this.id = id;
			this.firstOffset = firstOffset;
			this.lastOffset = lastOffset;
			this.slices = slices;
			this.openedNanos = openedNanos;
			this.done = new BitSet(slices);
		}

		boolean isFinished() {
			return this.done.cardinality() == this.slices;
		}

	}

}

package io.batchconsumer.core.exactlyonce;

import java.util.Collection;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The completion marks of one partition known to this instance: those at or above its committed
 * position loaded from the completion table when the partition is assigned, then added to after
 * each committed delivery, and dropped below each new committed position. Every offset below the
 * committed position counts as marked: it was finished before it was committed.
 *
 * <p>Threading: thread-safe; workers read and add, the owner thread loads and drops.
 */
final class CompletionMarks {

	private final ConcurrentSkipListSet<Long> offsets = new ConcurrentSkipListSet<>();

	/** The committed position: every offset below it is finished. */
	private volatile long floor;

	private final long epoch;

	/**
	 * No marks yet.
	 * @param floor the committed position, or {@code -1} when none is known
	 * @param epoch the owner epoch this instance claimed for the partition ({@link OwnerFence})
	 */
	CompletionMarks(long floor, long epoch) {
		this.floor = floor;
		this.epoch = epoch;
	}

	/** The owner epoch every delivery of the partition checks before it commits. */
	long epoch() {
		return this.epoch;
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

	java.util.List<Long> offsets() {
		return java.util.List.copyOf(this.offsets);
	}

	int size() {
		return this.offsets.size();
	}

}

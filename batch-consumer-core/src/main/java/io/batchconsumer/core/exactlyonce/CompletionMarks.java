package io.batchconsumer.core.exactlyonce;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeSet;

import io.batchconsumer.core.Message;
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
 * that marks an offset in an uncertain row's range first inserts and deletes a probe row under that
 * row's key in its own transaction, so that, when the uncertain one did commit (or still commits),
 * the probe collides with it (or waits for it) on the table's primary key.
 *
 * <p>Threading: thread-safe; workers read, add and read again (under the {@link ExactlyOnce}
 * monitor), the owner thread binds and drops.
 */
final class CompletionMarks {

	/** No partition epoch bound yet: the claim was made for an epoch that is about to start. */
	static final long UNBOUND = -1;

	private final ConcurrentSkipListSet<Long> offsets = new ConcurrentSkipListSet<>();

	/** Uncertain rows: key (their least offset) to their greatest offset. */
	private final NavigableMap<Long, Long> uncertain = new ConcurrentSkipListMap<>();

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

	/**
	 * The messages without a mark, in their order.
	 * @param messages messages of this partition
	 * @return those not marked
	 */
	List<Message<byte[]>> unmarked(List<Message<byte[]>> messages) {
		List<Message<byte[]>> fresh = new ArrayList<>(messages.size());
		for (Message<byte[]> message : messages) {
			if (!isMarked(message.offset())) {
				fresh.add(message);
			}
		}
		return fresh;
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
	 * The keys of the uncertain rows whose range holds one of these offsets: a delivery of them
	 * probes each key first, which collides with the uncertain row if it did commit (and waits for it
	 * while it still commits).
	 * @param sorted the offsets, ascending
	 * @return the keys to probe
	 */
	List<Long> probesFor(List<Long> sorted) {
		List<Long> probes = new ArrayList<>();
		if (this.uncertain.isEmpty()) {
			return probes;
		}
		NavigableSet<Long> offsets = new TreeSet<>(sorted);
		for (Map.Entry<Long, Long> row : this.uncertain.entrySet()) {
			Long inside = offsets.ceiling(row.getKey());
			if (inside != null && inside <= row.getValue()) {
				probes.add(row.getKey());
			}
		}
		return probes;
	}

	/**
	 * Rows whose transaction committed, after probing these keys: their offsets are marked, and the
	 * probed rows are known never to have committed.
	 */
	void committed(Collection<Long> marked, List<Long> probed) {
		addAll(marked);
		probed.forEach(this.uncertain::remove);
	}

	/** Rows whose transaction may or may not have committed. */
	void uncertain(List<OffsetRuns.Row> rows) {
		for (OffsetRuns.Row row : rows) {
			this.uncertain.put(row.first(), row.last());
		}
	}

	/**
	 * After the marks were read again: an uncertain row whose least offset is marked did commit; the
	 * others stay uncertain (not committed, or not visible yet).
	 */
	void resolveUncertain() {
		this.uncertain.keySet().removeIf(this::isMarked);
		this.stale = false;
	}

	boolean isStale() {
		return this.stale;
	}

	void stale() {
		this.stale = true;
	}

}

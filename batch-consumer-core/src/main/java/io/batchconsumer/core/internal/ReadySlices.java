package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The slices that may run and wait for a free worker: released by a key gate, retried, or taken back
 * from the pool's queue. A slice of an ended or draining epoch is dropped when it comes up; one of a
 * partition the operator paused stays, in its place, until the partition resumes, so a pause starts
 * no listener call of it.
 *
 * <p>Threading: owned by the owner thread.
 */
final class ReadySlices {

	private final ArrayDeque<Slice> slices = new ArrayDeque<>();

	private final Partitions partitions;

	ReadySlices(Partitions partitions) {
		this.partitions = partitions;
	}

	/** Runs before the others (a retry, a slice taken back). */
	void addFirst(Slice slice) {
		this.slices.addFirst(slice);
	}

	void addLast(Slice slice) {
		this.slices.addLast(slice);
	}

	/**
	 * The next slice to hand out.
	 * @return the slice, {@code null} when none may start now
	 */
	Slice poll() {
		List<Slice> paused = null;
		Slice next = null;
		while (next == null && !this.slices.isEmpty()) {
			Slice slice = this.slices.pollFirst();
			if (!this.partitions.isCurrent(slice) || slice.partition.isDraining()) {
				continue;
			}
			if (slice.partition.pauses.isUserPaused()) {
				paused = (paused != null) ? paused : new ArrayList<>();
				paused.add(slice);
			}
			else {
				next = slice;
			}
		}
		for (int i = (paused != null) ? paused.size() - 1 : -1; i >= 0; i--) {
			this.slices.addFirst(paused.get(i));
		}
		return next;
	}

}

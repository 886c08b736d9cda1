package io.batchconsumer.core.internal;

/**
 * The commit positions of one partition's epoch: the last confirmed one and the one requested and
 * not yet confirmed or failed. A commit is requested only past both; a failed one is forgotten so
 * the next carries the watermark again; the confirmed position never goes back.
 *
 * <p>Threading: owned by the owner thread, through its {@link PartitionState}.
 */
final class CommitPositions {

	/** Last committed position, -1 when none yet in this epoch. */
	private long committed = -1;

	/** Position of the last commit requested and not yet confirmed or failed, -1 when none. */
	private long requested = -1;

	long committed() {
		return this.committed;
	}

	/** Whether the watermark passed what was committed or requested. */
	boolean passedBy(long watermark) {
		return watermark > Math.max(this.committed, this.requested);
	}

	/** Marks the watermark as requested (an asynchronous commit is not sent twice) and returns it. */
	long request(long watermark) {
		this.requested = watermark;
		return watermark;
	}

	/**
	 * The final commit's position: the watermark when it passed the last <em>confirmed</em> position,
	 * even if an asynchronous commit of it is still in flight (that one may yet fail).
	 * @param watermark the watermark
	 * @return the position to commit, or -1 when there is none
	 */
	long requestFinal(long watermark) {
		if (watermark <= this.committed) {
			return -1;
		}
		this.requested = watermark;
		return watermark;
	}

	/** The source confirmed a commit; returns whether the committed position moved. */
	boolean confirm(long offset) {
		if (offset > this.committed) {
			this.committed = offset;
			return true;
		}
		return false;
	}

	/** A requested commit failed: forget it, so the next commit carries the watermark again. */
	void fail() {
		this.requested = -1;
	}

}

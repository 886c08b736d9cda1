package io.batchconsumer.core.internal;

import java.util.List;
import java.util.function.Predicate;

import io.batchconsumer.core.BatchStats;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.batch.BatchLedger;
import io.batchconsumer.core.batch.KeyGate;

/**
 * Everything the engine knows of one assigned partition for one epoch: its buffer (the
 * partition queue), its ledger, its key gate, its commit positions and its pause state. A revoke, a
 * loss or a seek replaces the whole object, which is how late completions of an older epoch miss.
 *
 * <p>Its verbs keep the invariants in one place: the backlog is what was fetched and not finished
 * (buffered plus handed out); a commit is requested only past what was committed or requested, and
 * a failed one is forgotten so the next carries it again; the committed position never goes back; an
 * ended epoch holds no buffer.
 *
 * <p>Threading: owned by the owner thread, which calls every verb. The one exception is
 * {@link #isCancelled()}, read by workers so they stop retrying work whose completion would be
 * ignored: {@code cancelled} is volatile. Other threads see a partition through
 * {@link io.batchconsumer.core.PartitionStats} snapshots.
 */
final class PartitionState {

	final TopicPartition partition;

	final long epoch;

	private final BatchLedger ledger = new BatchLedger();

	private final KeyGate<Slice> keyGate; // non-null in key ordering

	private final PartitionBuffer buffer = new PartitionBuffer();

	private final OpenBatches openSlices = new OpenBatches();

	/** Messages fetched and not finished, and their bytes. */
	private long backlog;

	private long backlogBytes;

	/** Slices of this epoch running on a worker. */
	private int running;

	/** Last committed position, -1 when none yet in this epoch. */
	private long committedOffset = -1;

	/** Position of the last commit requested and not yet confirmed or failed, -1 when none. */
	private long commitRequested = -1;

	/** Since when the partition has been idle with uncommitted progress, -1 when it is not. */
	private long idleSinceNanos = -1;

	private final FlowPause flow = new FlowPause();

	private boolean userPaused;

	/** Revoke in progress: no new slices start. */
	private boolean draining;

	private boolean sourcePaused;

	/** Set by the owner when this epoch ends (revoke, loss, seek, stop); read by workers. */
	private volatile boolean cancelled;

	PartitionState(TopicPartition partition, long epoch, Ordering ordering) {
		this.partition = partition;
		this.epoch = epoch;
		this.keyGate = (ordering == Ordering.KEY) ? new KeyGate<>(Slice::keys) : null;
	}

	void add(Message<byte[]> message) {
		if (this.buffer.add(message)) {
			this.idleSinceNanos = -1;
			this.backlog++;
			this.backlogBytes += message.serializedSize();
		}
	}

	int buffered() {
		return this.buffer.size();
	}

	/** Takes up to {@code max} messages from the head of the buffer. */
	List<Message<byte[]>> take(int max) {
		return this.buffer.take(max);
	}

	/** The oldest buffered message, {@code null} when the buffer is empty. */
	Message<byte[]> head() {
		return this.buffer.head();
	}

	/** How many buffered messages from the head, at most {@code max}, pass the test one after the other. */
	int leading(int max, Predicate<Message<byte[]>> test) {
		return this.buffer.leading(max, test);
	}

	/**
	 * Messages taken from the buffer that no listener gets (filtered) leave the backlog; their
	 * offsets stay covered by the batch they were taken for, so the watermark passes them.
	 */
	void finishUnsent(List<Message<byte[]>> messages) {
		for (Message<byte[]> message : messages) {
			this.backlog--;
			this.backlogBytes -= message.serializedSize();
		}
	}

	/** A taken run no listener gets: its batch is opened and finished at once in the ledger. */
	void passFiltered(long firstOffset, long lastOffset, long nowNanos) {
		long batchId = this.ledger.open(firstOffset, lastOffset, 1, nowNanos);
		if (this.ledger.complete(batchId, 0)) {
			this.ledger.advance();
			this.openSlices.dropFinished();
		}
	}

	/** Drops what was fetched and not handed out: it was never finished, so it is delivered again. */
	void dropBuffer() {
		this.backlog -= this.buffer.size();
		this.backlogBytes -= this.buffer.bytes();
		this.buffer.clear();
	}

	/** Opens a thread batch of these parts in the ledger (and the snapshot's) and returns its slices. */
	Slice[] openBatch(long firstOffset, long lastOffset, List<List<Message<byte[]>>> parts, long nowNanos) {
		long batchId = this.ledger.open(firstOffset, lastOffset, parts.size(), nowNanos);
		Slice[] slices = new Slice[parts.size()];
		for (int i = 0; i < slices.length; i++) {
			slices[i] = new Slice(this, batchId, i, parts.get(i), this.keyGate != null);
		}
		this.openSlices.open(batchId, firstOffset, lastOffset, nowNanos, slices);
		return slices;
	}

	/** Whether the slice may run now; otherwise the key gate holds it until its keys are free. */
	boolean enterKeyGate(Slice slice) {
		return this.keyGate == null || this.keyGate.enter(slice);
	}

	/** A slice of this epoch goes to a worker. */
	void startSlice() {
		this.idleSinceNanos = -1;
		this.running++;
	}

	/** A slice of this epoch came back, finished or not. */
	void sliceEnded() {
		this.running--;
	}

	/**
	 * A slice of this epoch finished: its messages leave the backlog, the ledger (and the snapshot's
	 * open batches) drop the finished prefix at once (so the span and the oldest open batch see it),
	 * and its keys are left.
	 * @param slice the slice
	 * @return the slices the key gate releases, to run next
	 */
	List<Slice> finishSlice(Slice slice) {
		this.backlog -= slice.messages.size();
		this.backlogBytes -= slice.bytes;
		slice.state = BatchStats.SliceState.DONE;
		if (this.ledger.complete(slice.batchId, slice.index)) {
			this.ledger.advance();
			this.openSlices.dropFinished();
		}
		return (this.keyGate != null) ? this.keyGate.leave(slice) : List.of();
	}

	int running() {
		return this.running;
	}

	int openBatches() {
		return this.ledger.openBatches();
	}

	long oldestOpenNanos() {
		return this.ledger.oldestOpenNanos();
	}

	/** The oldest open batches with the state of each slice, aged at {@code nowNanos}. */
	List<BatchStats> batchStats(long nowNanos) {
		return this.openSlices.stats(nowNanos);
	}

	long watermark() {
		return this.ledger.watermark();
	}

	long committedOffset() {
		return this.committedOffset;
	}

	/** Whether the watermark passed what was committed or requested. */
	boolean hasUncommittedProgress() {
		return this.ledger.watermark() > Math.max(this.committedOffset, this.commitRequested);
	}

	/** Marks the watermark as requested (an asynchronous commit is not sent twice) and returns it. */
	long requestCommit() {
		this.commitRequested = this.ledger.watermark();
		return this.commitRequested;
	}

	/**
	 * The final commit's position: the watermark when it passed the last <em>confirmed</em> position,
	 * even if an asynchronous commit of it is still in flight (that one may yet fail).
	 * @return the position to commit, or -1 when there is none
	 */
	long requestFinalCommit() {
		long watermark = this.ledger.watermark();
		if (watermark <= this.committedOffset) {
			return -1;
		}
		this.commitRequested = watermark;
		return watermark;
	}

	/** The source confirmed a commit of this partition; returns whether the committed position moved. */
	boolean confirmCommit(long offset) {
		if (offset > this.committedOffset) {
			this.committedOffset = offset;
			return true;
		}
		return false;
	}

	/** A requested commit failed: forget it, so the next commit carries the watermark again. */
	void failCommit() {
		this.commitRequested = -1;
	}

	/**
	 * Since when nothing of this epoch was fetched, buffered or running while its watermark moved (as
	 * the owner saw it, for {@link CommitScheduler}'s idle commit); -1 when that is not so now.
	 */
	long idleWithProgressSince(long nowNanos) {
		if (this.running == 0 && this.buffer.isEmpty() && hasUncommittedProgress()) {
			if (this.idleSinceNanos < 0) {
				this.idleSinceNanos = nowNanos;
			}
		}
		else {
			this.idleSinceNanos = -1;
		}
		return this.idleSinceNanos;
	}

	long backlog() {
		return this.backlog;
	}

	long backlogBytes() {
		return this.backlogBytes;
	}

	long fetchedOffset() {
		return this.buffer.fetchedOffset();
	}

	/** Highest fetched minus lowest unfinished offset; 0 when nothing is unfinished. */
	long span() {
		long lowest = this.ledger.lowestOpenOffset();
		if (lowest < 0) {
			lowest = this.buffer.firstOffset();
		}
		return (lowest < 0) ? 0 : this.buffer.highestFetched() - lowest;
	}

	/** Whether flow control stopped fetching it, since when and why. */
	FlowPause flow() {
		return this.flow;
	}

	void pauseByUser(boolean pause) {
		this.userPaused = pause;
	}

	boolean isUserPaused() {
		return this.userPaused;
	}

	/** Records whether the source should have it paused; returns whether that changed (tell the source). */
	boolean sourcePausedChangesTo(boolean pause) {
		if (pause == this.sourcePaused) {
			return false;
		}
		this.sourcePaused = pause;
		return true;
	}

	/** A seek's new epoch keeps the pauses of the old. */
	void keepPausesOf(PartitionState old) {
		this.sourcePaused = old.sourcePaused;
		this.userPaused = old.userPaused;
	}

	/** A revoke or stop begins: no new slices, the buffer is dropped (it is delivered again). */
	void startDraining() {
		this.draining = true;
		dropBuffer();
	}

	boolean isDraining() {
		return this.draining;
	}

	/** Ends this epoch: workers give up its slices, the buffer is dropped. */
	void cancel() {
		this.cancelled = true;
		dropBuffer();
	}

	/** Any thread (volatile). */
	boolean isCancelled() {
		return this.cancelled;
	}

	boolean isDispatchable() {
		return !this.buffer.isEmpty() && !this.draining && !this.userPaused;
	}

}

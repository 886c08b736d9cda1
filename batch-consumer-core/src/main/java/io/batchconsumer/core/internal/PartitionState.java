package io.batchconsumer.core.internal;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;

/**
 * Everything the engine knows of one assigned partition for one epoch: its buffer (the
 * partition queue), its ledger, its key gate, its commit positions ({@link CommitPositions}) and its
 * pause state ({@link FlowPause}, {@link PartitionPauses}). A revoke, a
 * loss or a seek replaces the whole object, which is how late completions of an older epoch miss.
 *
 * <p>Its verbs keep the invariants in one place: the backlog is what was fetched and not finished
 * (buffered plus handed out); commits follow the ledger's watermark; an ended epoch holds no buffer.
 *
 * <p>Threading: owned by the owner thread, which calls every verb. The one exception is
 * {@link #isCancelled()}, read by workers so they stop retrying work whose completion would be
 * ignored: {@code cancelled} is volatile. Other threads see a partition through
 * {@link io.batchconsumer.core.PartitionSnapshot} snapshots.
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

	private final CommitPositions commits = new CommitPositions();

	/** Since when the partition has been idle with uncommitted progress, -1 when it is not. */
	private long idleSinceNanos = -1;

	private final FlowPause flow = new FlowPause();

	/** Since when its buffered messages wait for a batch to fill, -1 when none wait ({@link BatchFill}). */
	long fillSinceNanos = -1;

	/**
	 * Whether the keys its messages in the retry queue hold are known ({@link RetryHolds}); it hands
	 * nothing out until they are. Owner thread.
	 */
	boolean retryHoldsKnown = true;

	/** An operator's pause and what the source was told. */
	final PartitionPauses pauses = new PartitionPauses();

	/** Revoke in progress: no new slices start. */
	/** Set by the owner when a revoke or stop begins; read by workers in a back-off. */
	private volatile boolean draining;

	/** Told when this epoch ends or starts draining (wakes the workers' back-offs); set once by the owner. */
	private Runnable ending = () -> {
	};

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
		complete(batchId, 0);
	}

	/** Drops what was fetched and not handed out: it was never finished, so it is delivered again. */
	void dropBuffer() {
		this.backlog -= this.buffer.size();
		this.backlogBytes -= this.buffer.bytes();
		this.buffer.clear();
	}

	/**
	 * Opens a thread batch of these parts in the ledger (and the snapshot's) and returns its slices,
	 * whose listener calls take at most {@code callSize} messages each.
	 */
	Slice[] openBatch(long firstOffset, long lastOffset, List<List<Message<byte[]>>> parts, int callSize,
			long nowNanos) {
		long batchId = this.ledger.open(firstOffset, lastOffset, parts.size(), nowNanos);
		Slice[] slices = new Slice[parts.size()];
		for (int i = 0; i < slices.length; i++) {
			slices[i] = new Slice(this, batchId, i, parts.get(i), callSize);
		}
		this.openSlices.open(batchId, firstOffset, lastOffset, nowNanos, slices);
		return slices;
	}

	/**
	 * Whether the slice may run now; otherwise the key gate holds it until its keys are free, or, for
	 * a run of consecutive messages, until every older slice of the partition left (see
	 * {@link io.batchconsumer.core.internal.KeyGate#enterBehindAll}).
	 * @param slice the slice
	 * @param run whether it is a run that waits behind every older slice instead of naming its keys
	 * @return {@code true} when it may run now
	 */
	boolean enterKeyGate(Slice slice, boolean run) {
		if (this.keyGate == null) {
			return true;
		}
		return run ? this.keyGate.enterBehindAll(slice) : this.keyGate.enter(slice);
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
		return finishSlice(slice, List.of());
	}

	/**
	 * A slice of this epoch finished, some of its messages handed to the retry queue: as
	 * {@link #finishSlice(Slice)}, and their keys stay held ({@link KeyGate#leave(Object, Collection)}).
	 * @param slice the slice
	 * @param handedOff the keys of its messages in the retry queue, one per message
	 * @return the slices the key gate releases, to run next
	 */
	List<Slice> finishSlice(Slice slice, Collection<String> handedOff) {
		this.backlog -= slice.messages.size();
		this.backlogBytes -= slice.bytes;
		slice.state = BatchSnapshot.SliceState.DONE;
		complete(slice.batchId, slice.index);
		return (this.keyGate != null) ? this.keyGate.leave(slice, handedOff) : List.of();
	}

	/** Holds a key for one more of its messages in the retry queue (key order only). */
	void holdKey(String key) {
		if (this.keyGate != null) {
			this.keyGate.hold(key);
		}
	}

	/** Releases one held message of a key; returns the slices that may run now. */
	List<Slice> releaseKey(String key) {
		return (this.keyGate != null) ? this.keyGate.release(key) : List.of();
	}

	/** The keys held by the retry queue, with their messages there. */
	Map<String, Integer> retryHolds() {
		return (this.keyGate != null) ? this.keyGate.retryHolds() : Map.of();
	}

	/** Whether a slice with this key would wait for it in the key gate (see {@link KeyGate#isHeld}). */
	boolean isKeyHeld(String key) {
		return this.keyGate != null && this.keyGate.isHeld(key);
	}

	/** Keys held by the retry queue. */
	int retryHeldKeys() {
		return (this.keyGate != null) ? this.keyGate.retryHeldKeys() : 0;
	}

	/** Messages of slices waiting for a key the retry queue holds. */
	int waitingForRetryHolds() {
		return (this.keyGate != null) ? this.keyGate.waitingForRetryHolds((slice) -> slice.messages.size()) : 0;
	}

	/** Finishes a slice in the ledger; a finished prefix leaves it (and the snapshot's) at once. */
	private void complete(long batchId, int index) {
		if (this.ledger.complete(batchId, index)) {
			this.ledger.advance();
			this.openSlices.dropFinished();
		}
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
	List<BatchSnapshot> batchStats(long nowNanos) {
		return this.openSlices.stats(nowNanos);
	}

	long watermark() {
		return this.ledger.watermark();
	}

	long committedOffset() {
		return this.commits.committed();
	}

	boolean hasUncommittedProgress() {
		return this.commits.passedBy(this.ledger.watermark());
	}

	long requestCommit() {
		return this.commits.request(this.ledger.watermark());
	}

	/**
	 * The final commit's position (see {@link CommitPositions#requestFinal}), -1 when there is none:
	 * finer than the watermark, the lowest unfinished offset of the oldest open batch. The next owner
	 * of the partition after a revoke or a stop then gets no finished slice of that batch again
	 * (slices taken back from the pool's queue, slices waiting for a key or still running when the
	 * drain timed out leave their batch open).
	 */
	long requestFinalCommit() {
		long position = Math.max(this.ledger.watermark(), this.openSlices.lowestUnfinishedOffset());
		return this.commits.requestFinal(position);
	}

	boolean confirmCommit(long offset) {
		return this.commits.confirm(offset);
	}

	void failCommit() {
		this.commits.fail();
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

	/** A revoke or stop begins: no new slices, the buffer is dropped (it is delivered again). */
	void startDraining() {
		this.draining = true;
		dropBuffer();
		this.ending.run();
	}

	/** What to tell when this epoch ends or starts draining; owner thread, before it is shared. */
	void whenEnding(Runnable ending) {
		this.ending = ending;
	}

	boolean isDraining() {
		return this.draining;
	}

	/** Ends this epoch: workers give up its slices, the buffer is dropped. */
	void cancel() {
		this.cancelled = true;
		dropBuffer();
		this.ending.run();
	}

	/** Any thread (volatile). */
	boolean isCancelled() {
		return this.cancelled;
	}

	boolean isDispatchable() {
		return !this.buffer.isEmpty() && !this.draining && !this.pauses.isUserPaused() && this.retryHoldsKnown;
	}

}

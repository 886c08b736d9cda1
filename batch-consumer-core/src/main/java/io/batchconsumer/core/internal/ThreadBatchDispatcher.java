package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;

/**
 * Forms thread batches when workers are idle (PMQ's idle-thread-aware batch creation), hands
 * their slices to the workers, and takes the completions back into the ledgers and key gates.
 *
 * <p>For a partition with {@code buffered} messages and {@code idle} free workers, a batch takes a
 * contiguous run of the buffer and splits it into
 * {@code n = min(idle, ceil(buffered / consumerBatchSize), threadSize)} slices of at most
 * {@code size} messages: {@code consumerBatchSize}, or more while the messages are cheap
 * ({@link SliceSizing}; a list listener then gets a slice in calls of at most
 * {@code consumerBatchSize}, see {@link SliceRunner}). In {@code key} order a slice holds whole keys, and
 * a longer part (a hot key) is cut into slices that run one after the other through the key gate.
 *
 * <p>In {@code key} order, while the owner thread is the bound ({@link SliceSizing#ownerBound()}: it
 * is busy, and a worker takes less than half its time for a message, both measured), a batch is not cut: it
 * is one slice of consecutive messages, up to as many grown slices as it could have been cut into,
 * and it enters the key gate behind every older slice of its partition, naming no key
 * ({@link io.batchconsumer.core.internal.KeyGate#enterBehindAll}). One worker keeps up with all the owner
 * hands out then; the owner saves the key hashing and the gate's map update per message, and the
 * workers read the messages in the order they were allocated (docs/benchmarks.md, "Key batches handed out whole").
 * A partition's batches then run one at a time; as soon as the workers' time per message grows past
 * half the owner's, batches are cut by key again. {@code unordered} batches are cut as ever: their
 * slices are consecutive already, and not cutting them measured no gain.
 *
 * <p>Partitions take turns: each round starts after the partition served first last time, and no
 * partition takes more than its share of the idle workers while others wait.
 *
 * <p>Up to {@value #HANDED_OUT_PER_WORKER} slices per worker are handed out at once: one runs, the
 * next waits in the pool's queue, so a worker that finishes takes its next slice without waiting for
 * the owner thread's turn (at zero work that hand-off was the cost, not the records). A pause, a
 * revoke or the stop takes back the slices not started ({@link #withdrawQueued}): only started slices
 * run on, as with one slice per worker; a user-paused partition's slices wait in the ready queue.
 *
 * <p>A partition may wait for its batch to fill ({@link BatchFill}); a slice may be bounded by bytes
 * ({@link SliceBytes}; slices do not grow then, so a list listener gets each in one call); new batches
 * take no more messages than the rate limit leaves ({@link RateBudget}); a key's messages beyond its
 * own rate wait apart ({@link KeyRateLimit}). Each of these holds messages back, never on a worker.
 *
 * <p>A slice that comes back unfinished while its epoch is current (a {@code Throwable} escaped
 * its processing, see {@link SliceTask}) is run again first, still holding its keys.
 *
 * <p>Threading: owned by the owner thread; workers only run a {@link SliceTask} and post the
 * completion.
 */
final class ThreadBatchDispatcher {

	/** Slices handed out per worker: one running, one waiting in the pool's queue. */
	static final int HANDED_OUT_PER_WORKER = 2;

	private ContainerOptions options; // replaced by retune (runtime tuning)

	private final Partitions partitions;

	private final SliceRunner runner;

	private final Executor workers;

	private final Consumer<Completion> mailbox;

	private final MessageSelector selector;

	private final DueGate dueGate;

	/** Slices a key gate released, retried or taken back, waiting for a free worker. */
	private final ReadySlices ready;

	/** Slices handed out (running or in the pool's queue) and not completed, of any epoch, with their tasks. */
	private final Map<Slice, SliceTask> onWorker = new HashMap<>();

	/** Slices off their worker while an asynchronous listener call's stage is pending; still in flight. */
	private final Set<Slice> awaitingStage = new HashSet<>();

	private int turn;

	private final KeylessWarning keyless;

	private final SliceSizing sizing;

	private final Counters counters;

	private final BatchFill fill;

	private final RateBudget rate;

	private final KeyRateLimit keyRate;

	/** Whether a slice held by its key's rate may still run: its epoch is current and not draining. */
	private final Predicate<Slice> mayStillRun;

	/** Keys held by the retry queue in {@code key} order ({@link RetryHolds}), {@code null} without. */
	private RetryHolds holds;

	ThreadBatchDispatcher(ContainerOptions options, Partitions partitions, SliceRunner runner, Executor workers,
			Consumer<Completion> mailbox, MessageSelector selector, DueGate dueGate, Counters counters) {
		this.counters = counters;
		this.selector = selector;
		this.dueGate = dueGate;
		this.keyless = new KeylessWarning(options.id());
		this.sizing = new SliceSizing(runner.listener());
		this.options = options;
		this.fill = new BatchFill(options);
		this.rate = new RateBudget(options.rateLimit(), counters.heldByRateLimit);
		this.keyRate = new KeyRateLimit(options.rateLimitPerKey(), counters.heldByKeyRateLimit);
		this.partitions = partitions;
		this.mayStillRun = (slice) -> partitions.isCurrent(slice) && !slice.partition.isDraining();
		this.ready = new ReadySlices(partitions);
		this.runner = runner;
		this.workers = workers;
		this.mailbox = mailbox;
	}

	/**
	 * Holds keys whose messages wait in the retry queue: their later messages wait in the key gate. Slices
	 * then take at most {@code consumer-batch-size} messages, one listener call, and batches are cut by
	 * key: a later call of a slice could otherwise pass a message its earlier call handed to the queue.
	 */
	void holdKeysForRetry(RetryHolds retryHolds) {
		this.holds = retryHolds;
	}

	/** Takes tuned options: the next batches are formed with them. */
	void retune(ContainerOptions tuned) {
		this.options = tuned;
		this.fill.retune(tuned);
		this.rate.retune(tuned.rateLimit());
		this.keyRate.retune(tuned.rateLimitPerKey());
	}

	/**
	 * Whether the owner's cost per message decides how batches are cut: in {@code key} order only, so
	 * the owner measures its CPU time only then.
	 * @return {@code true} in {@code key} order
	 */
	boolean weighsOwner() {
		return this.options.ordering() == Ordering.KEY;
	}

	/**
	 * The owner's loop starts: its first window of CPU time begins now (see {@link SliceSizing#ownerStarts}).
	 * @param cpuNanos the owner's CPU time so far
	 * @param nowNanos the monotonic time
	 */
	void ownerStarts(long cpuNanos, long nowNanos) {
		this.sizing.ownerStarts(cpuNanos, nowNanos);
	}

	/**
	 * Takes a turn of the owner's loop (see {@link SliceSizing#ownerSpent}).
	 * @param cpuNanos the owner's CPU time so far
	 * @param polled the messages it polled in the turn
	 * @param nowNanos the monotonic time
	 */
	void ownerSpent(long cpuNanos, int polled, long nowNanos) {
		this.sizing.ownerSpent(cpuNanos, polled, nowNanos);
	}

	/** Slices handed out (running or in the pool's queue) and not completed. */
	int busy() {
		return this.onWorker.size();
	}

	/** Completions the owner may await before handing out more: queued slices down to half a round, at least 1. */
	int completionsToAwait() {
		int queued = busy() - this.options.threadSize();
		return Math.max(1, queued - this.options.threadSize() / 2);
	}

	/** Workers running a slice, as far as the owner knows: at most the thread size. */
	int busyThreads() {
		return Math.min(busy(), this.options.threadSize());
	}

	/**
	 * The slices on a worker (or queued for one), described for the log.
	 * @return one line per slice
	 */
	List<String> onWorkers() {
		List<String> described = new ArrayList<>(this.onWorker.values().stream().map(SliceTask::describe).toList());
		this.awaitingStage.forEach((slice) -> described.add(slice + " (its listener's CompletionStage pending)"));
		return described;
	}

	/**
	 * Hands released and retried slices, then new thread batches, to the idle workers. A runnable
	 * slice beyond the idle workers waits in the ready queue.
	 * @param nowNanos the time new batches are opened
	 */
	void dispatch(long nowNanos) {
		int limit = this.options.threadSize() * HANDED_OUT_PER_WORKER;
		int idle = limit - busy();
		if (this.holds != null) {
			this.holds.refreshIfDue(this::released);
		}
		this.keyRate.release(nowNanos, this.mayStillRun, this::released);
		Slice next;
		while (idle > 0 && (next = this.ready.poll()) != null) {
			submit(next);
			idle--;
		}
		this.fill.track(this.partitions.all(), nowNanos);
		for (Slice slice : formBatches(this.partitions.all(), idle, nowNanos)) {
			if (busy() < limit) {
				submit(slice);
			}
			else {
				this.ready.addLast(slice);
			}
		}
	}

	/**
	 * Takes a worker's completion: frees its worker, finishes its slice in the ledger (dropping the
	 * finished prefix at once, so the span and the oldest open batch see it), and releases the
	 * slices waiting for its keys. A completion of an ended epoch only frees its worker.
	 * @param completion the completion
	 */
	void complete(Completion completion) {
		Slice slice = completion.slice();
		if (completion.stage() == Completion.Stage.COMPLETED) {
			goOnAfterStage(slice);
			return;
		}
		this.onWorker.remove(slice);
		if (completion.stage() == Completion.Stage.PENDING) {
			slice.earlierNanos += completion.nanos();
			awaitStage(slice);
			return;
		}
		this.sizing.completed(slice.messages.size(), slice.earlierNanos + completion.nanos());
		PartitionState partition = slice.partition;
		partition.sliceEnded();
		if (!this.partitions.isCurrent(slice)) {
			return;
		}
		if (!completion.finished()) {
			// A Throwable escaped its processing: run it again, first, still holding its keys.
			this.ready.addFirst(slice);
			return;
		}
		List<String> held = (this.holds != null) ? this.holds.heldBy(slice) : List.of();
		for (Slice released : partition.finishSlice(slice, held)) {
			released(released);
		}
		if (this.holds != null) {
			this.holds.finished(slice, this::released);
		}
	}

	/** A slice a key gate released waits for a worker, or for its key's rate. */
	private void released(Slice slice) {
		if (this.keyRate.admits(slice)) {
			slice.state = BatchSnapshot.SliceState.WAITING_FOR_WORKER;
			this.ready.addLast(slice);
		}
	}

	/**
	 * A worker let a slice go while its asynchronous listener call's stage is pending: the worker is
	 * free, the slice stays in flight (running on its partition, open in the ledger, holding its
	 * keys), and the stage's completion comes back through the mailbox, whichever thread completes it.
	 */
	private void awaitStage(Slice slice) {
		this.awaitingStage.add(slice);
		slice.state = BatchSnapshot.SliceState.AWAITING_COMPLETION;
		slice.awaitedSinceNanos = this.runner.ticker().nanoTime();
		slice.pending.whenDone(() -> this.mailbox.accept(Completion.stageCompleted(slice)));
	}

	/**
	 * A slice's pending stage completed: a worker goes on with it from the call's outcome (retries,
	 * dead letters and its next calls block, so they are no work for the owner). It is still running
	 * on its partition, so it goes straight to the pool; a slice of an ended epoch is dropped.
	 */
	private void goOnAfterStage(Slice slice) {
		this.awaitingStage.remove(slice);
		slice.earlierNanos += this.runner.ticker().nanoTime() - slice.awaitedSinceNanos;
		if (!this.partitions.isCurrent(slice)) {
			slice.partition.sliceEnded();
			return;
		}
		slice.state = BatchSnapshot.SliceState.IN_FLIGHT;
		SliceTask task = new SliceTask(slice, this.runner, this.mailbox);
		this.onWorker.put(slice, task);
		this.workers.execute(task);
	}

	/**
	 * Takes back the slices of these partitions still waiting in the pool's queue (not started), as a
	 * drain or a pause begins: they go back to the ready queue holding their keys (the ledger keeps
	 * them open), so only slices that started run on. A slice a worker took already is not in the
	 * queue: it counts as started.
	 * @param states the partitions
	 */
	void withdrawQueued(Collection<PartitionState> states) {
		if (!(this.workers instanceof ThreadPoolExecutor pool)) {
			return;
		}
		for (Iterator<Map.Entry<Slice, SliceTask>> it = this.onWorker.entrySet().iterator(); it.hasNext();) {
			Map.Entry<Slice, SliceTask> entry = it.next();
			Slice slice = entry.getKey();
			if (states.contains(slice.partition) && pool.remove(entry.getValue())) {
				it.remove();
				slice.partition.sliceEnded();
				slice.state = BatchSnapshot.SliceState.WAITING_FOR_WORKER;
				this.ready.addFirst(slice);
			}
		}
	}

	private void submit(Slice slice) {
		slice.state = BatchSnapshot.SliceState.IN_FLIGHT;
		slice.partition.startSlice();
		SliceTask task = new SliceTask(slice, this.runner, this.mailbox);
		this.onWorker.put(slice, task);
		this.workers.execute(task);
	}

	/**
	 * Forms batches for up to {@code idle} workers.
	 * @param partitions the assigned partitions
	 * @param idle free workers
	 * @param nowNanos the time batches are opened
	 * @return slices that may run now; slices waiting for a key stay in their partition's gate
	 */
	private List<Slice> formBatches(List<PartitionState> partitions, int idle, long nowNanos) {
		List<Slice> runnable = new ArrayList<>();
		int size = partitions.size();
		if (idle <= 0 || size == 0) {
			return runnable;
		}
		int waiting = 0;
		for (PartitionState partition : partitions) {
			if (canDispatch(partition, nowNanos)) {
				waiting++;
			}
		}
		if (waiting == 0 || this.rate.shouldHold(this.options.consumerBatchSize(), nowNanos)) {
			return runnable;
		}
		int share = Math.max(1, (idle + waiting - 1) / waiting);
		int start = Math.floorMod(this.turn++, size);
		for (int i = 0; i < size && idle > 0 && this.rate.remaining() > 0; i++) {
			PartitionState partition = partitions.get((start + i) % size);
			if (canDispatch(partition, nowNanos)) {
				int started = openBatch(partition, Math.min(idle, share), nowNanos, runnable);
				idle -= started;
			}
		}
		return runnable;
	}

	private boolean canDispatch(PartitionState partition, long nowNanos) {
		if (!partition.isDispatchable() || !this.dueGate.isDue(partition.head())
				|| this.fill.shouldWait(partition, this.dueGate::isDue, nowNanos)) {
			return false;
		}
		// One slice at a time per partition: the next batch waits until the open one is finished.
		return this.options.ordering() != Ordering.PARTITION || partition.openBatches() == 0;
	}

	/** How long until the first waiting head falls due (see {@link DueGate#nanosUntilHeadDue}). */
	long nanosUntilHeadDue() {
		return this.dueGate.nanosUntilHeadDue(this.partitions.all());
	}

	/**
	 * How long until messages held back become due: a delayed head, the end of a batch's wait to fill,
	 * or the tokens the rate limits wait for.
	 * @param nowNanos the time
	 * @return nanoseconds, {@code Long.MAX_VALUE} when nothing is held back
	 */
	long nanosUntilHeldBackIsDue(long nowNanos) {
		long until = Math.min(nanosUntilHeadDue(), this.fill.nanosUntilWaitEnds(this.partitions.all(), nowNanos));
		until = Math.min(until, this.keyRate.nanosUntilRelease(nowNanos));
		return Math.min(until, this.rate.nanosUntilTokens(this.options.consumerBatchSize(), nowNanos));
	}

	/**
	 * Opens batches on a partition until one has a message to deliver: a run whose every message
	 * is filtered is opened and finished at once, so the watermark passes it without a worker.
	 */
	private int openBatch(PartitionState partition, int workers, long nowNanos, List<Slice> runnable) {
		while (canDispatch(partition, nowNanos) && this.rate.remaining() > 0) {
			int started = openOneBatch(partition, workers, nowNanos, runnable);
			if (started >= 0) {
				return started;
			}
		}
		return 0;
	}

	/** Opens one batch; returns the slices started, or -1 when the whole run was filtered. */
	private int openOneBatch(PartitionState partition, int workers, long nowNanos, List<Slice> runnable) {
		int batchSize = this.options.consumerBatchSize();
		long maxBytes = this.options.consumerBatchMaxBytes();
		int sliceSize = (maxBytes > 0 || this.holds != null) ? batchSize : this.sizing.maxSliceSize(this.options);
		int most = (this.options.ordering() == Ordering.PARTITION) ? 1 : Math.min(workers, this.options.threadSize());
		// Counts no further than the batch can take: a scan per batch as long as the run it takes.
		int limit = (int) Math.min((long) most * sliceSize, this.rate.remaining());
		Predicate<Message<byte[]>> takes = this.dueGate::isDue;
		takes = (maxBytes > 0) ? takes.and(SliceBytes.packing(most, sliceSize, maxBytes)) : takes;
		boolean perKey = this.keyRate.isLimited() && this.options.ordering() != Ordering.PARTITION;
		int buffered = partition.leading(limit, (this.keyRate.isLimited() && !perKey)
				? this.keyRate.heads(takes, nowNanos) : takes);
		if (buffered == 0) {
			return 0; // its head waits for its key's rate
		}
		// While the owner is the bound, a key batch is one run of consecutive messages, not cut.
		boolean whole = maxBytes <= 0 && this.holds == null && !perKey && weighsOwner() && this.sizing.ownerBound();
		int n = whole ? 1 : Math.min(most, SliceSplitter.ceilDiv(buffered, batchSize));
		// Fewer, fuller slices rather than slices under the minimum the batch waited for.
		n = Math.min(n, Math.max(1, buffered / this.options.consumerBatchMinSize()));
		List<Message<byte[]>> taken = partition.take(Math.min(buffered, (whole ? most : n) * sliceSize));
		this.fill.taken(partition);
		long first = taken.get(0).offset();
		long last = taken.get(taken.size() - 1).offset();
		List<Message<byte[]>> run = this.selector.select(taken);
		if (run != taken) {
			partition.finishUnsent(SliceSplitter.unselected(taken, run));
		}
		if (run.isEmpty()) {
			partition.passFiltered(first, last, nowNanos);
			return -1;
		}
		this.rate.spend(run.size());
		if (this.options.ordering() == Ordering.KEY) {
			this.keyless.check(run);
		}
		(whole ? this.counters.batchesWhole : this.counters.batchesCut).increment();
		List<List<Message<byte[]>>> parts = (this.options.ordering() == Ordering.KEY && !whole)
				? SliceSplitter.atMost(SliceSplitter.byKey(run, n), sliceSize) : this.fill.consecutive(run, n);
		if (maxBytes > 0) {
			parts = (this.options.ordering() == Ordering.KEY) ? SliceBytes.atMost(parts, maxBytes)
					: SliceBytes.pack(run, sliceSize, maxBytes);
		}
		if (this.holds != null) {
			parts = RetryHolds.apart(parts, partition);
		}
		KeyRateLimit.Split split = perKey ? this.keyRate.apart(parts, batchSize, nowNanos, partition::isKeyHeld) : null;
		int started = 0;
		// The batch covers the filtered messages too, so the watermark passes them.
		Slice[] slices = partition.openBatch(first, last, (split != null) ? split.parts() : parts,
				this.sizing.callSize(this.options), nowNanos);
		if (split != null) {
			this.keyRate.owe(slices, split.free());
		}
		for (Slice slice : slices) {
			if (!partition.enterKeyGate(slice, whole)) {
				slice.state = BatchSnapshot.SliceState.WAITING_FOR_KEY;
			}
			else if (this.keyRate.admits(slice)) {
				runnable.add(slice);
				started++;
			}
		}
		return started;
	}

}

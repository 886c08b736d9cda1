package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * {@code consumerBatchSize} messages. In {@code key} order a slice holds whole keys, and a part
 * longer than {@code consumerBatchSize} (a hot key) is cut into several slices that run one after
 * the other through the key gate: a listener never gets more than {@code consumerBatchSize}
 * messages. Partitions take turns: each round starts after the
 * partition served first last time, and no partition takes more than its share of the idle
 * workers while others wait.
 *
 * <p>A slice that comes back unfinished while its epoch is current (a {@code Throwable} escaped
 * its processing, see {@link SliceTask}) is run again first, still holding its keys.
 *
 * <p>Threading: owned by the owner thread; workers only run a {@link SliceTask} and post the
 * completion.
 */
final class ThreadBatchDispatcher {

	private static final Logger logger = LoggerFactory.getLogger(ThreadBatchDispatcher.class);

	private final ContainerOptions options;

	private final Partitions partitions;

	private final SliceRunner runner;

	private final Executor workers;

	private final Consumer<Completion> mailbox;

	private final MessageSelector selector;

	private final DueGate dueGate;

	/** Slices a key gate released, waiting for a free worker. */
	private final ArrayDeque<Slice> ready = new ArrayDeque<>();

	/** Slices handed to a worker and not completed, of any epoch, with their tasks (by identity). */
	private final Map<Slice, SliceTask> onWorker = new HashMap<>();

	/** Slices handed to a worker and not completed, of any epoch. */
	private int busy;

	private int turn;

	/** Whether {@code key} ordering met a keyless message and said so (once per container). */
	private boolean warnedKeyless;

	/** A dispatcher that delivers every message at once (no tags, no filter, no delay). */
	ThreadBatchDispatcher(ContainerOptions options, Partitions partitions, SliceRunner runner, Executor workers,
			Consumer<Completion> mailbox) {
		this(options, partitions, runner, workers, mailbox,
				new MessageSelector(options.id(), io.batchconsumer.core.TagExpression.parse("*"), null, new Counters()),
				new DueGate(java.time.Duration.ZERO, java.time.Clock.systemUTC()));
	}

	ThreadBatchDispatcher(ContainerOptions options, Partitions partitions, SliceRunner runner, Executor workers,
			Consumer<Completion> mailbox, MessageSelector selector, DueGate dueGate) {
		this.selector = selector;
		this.dueGate = dueGate;
		this.options = options;
		this.partitions = partitions;
		this.runner = runner;
		this.workers = workers;
		this.mailbox = mailbox;
	}

	int busy() {
		return this.busy;
	}

	/**
	 * The slices on a worker (or queued for one), described for the log.
	 * @return one line per slice
	 */
	List<String> onWorkers() {
		return this.onWorker.values().stream().map(SliceTask::describe).toList();
	}

	/**
	 * Hands released and retried slices, then new thread batches, to the idle workers. A runnable
	 * slice beyond the idle workers waits in the ready queue.
	 */
	void dispatch() {
		int idle = this.options.threadSize() - this.busy;
		while (idle > 0 && !this.ready.isEmpty()) {
			Slice slice = this.ready.pollFirst();
			if (this.partitions.isCurrent(slice) && !slice.partition.draining) {
				submit(slice);
				idle--;
			}
		}
		for (Slice slice : formBatches(this.partitions.all(), idle, System.nanoTime())) {
			if (this.busy < this.options.threadSize()) {
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
		this.busy--;
		Slice slice = completion.slice();
		this.onWorker.remove(slice);
		PartitionState partition = slice.partition;
		partition.running--;
		if (!this.partitions.isCurrent(slice)) {
			return;
		}
		if (!completion.finished()) {
			// A Throwable escaped its processing: run it again, first, still holding its keys.
			this.ready.addFirst(slice);
			return;
		}
		partition.finished(slice);
		if (partition.ledger.complete(slice.batchId, slice.index)) {
			partition.ledger.advance();
		}
		if (partition.keyGate != null) {
			this.ready.addAll(partition.keyGate.leave(slice));
		}
	}

	private void submit(Slice slice) {
		this.busy++;
		slice.partition.running++;
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
			if (canDispatch(partition)) {
				waiting++;
			}
		}
		if (waiting == 0) {
			return runnable;
		}
		int share = Math.max(1, (idle + waiting - 1) / waiting);
		int start = Math.floorMod(this.turn++, size);
		for (int i = 0; i < size && idle > 0; i++) {
			PartitionState partition = partitions.get((start + i) % size);
			if (canDispatch(partition)) {
				int started = openBatch(partition, Math.min(idle, share), nowNanos, runnable);
				idle -= started;
			}
		}
		return runnable;
	}

	private boolean canDispatch(PartitionState partition) {
		if (!partition.isDispatchable() || !this.dueGate.isDue(partition.head())) {
			return false;
		}
		// One slice at a time per partition: the next batch waits until the open one is finished.
		return this.options.ordering() != Ordering.PARTITION || partition.ledger.openBatches() == 0;
	}

	/**
	 * How long until the head of a partition waiting for its delay falls due, for the poll loop's
	 * wait; {@code Long.MAX_VALUE} when none waits.
	 * @return nanoseconds
	 */
	long nanosUntilHeadDue() {
		long millis = Long.MAX_VALUE;
		for (PartitionState partition : this.partitions.all()) {
			// A head that is due already waits for a worker, whose completion wakes the loop.
			long until = partition.isDispatchable() ? this.dueGate.millisUntilDue(partition.head()) : 0;
			if (until > 0) {
				millis = Math.min(millis, until);
			}
		}
		return (millis == Long.MAX_VALUE) ? millis : java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(millis);
	}

	/**
	 * Opens batches on a partition until one has a message to deliver: a run whose every message
	 * is filtered is opened and finished at once, so the watermark passes it without a worker.
	 */
	private int openBatch(PartitionState partition, int workers, long nowNanos, List<Slice> runnable) {
		while (canDispatch(partition)) {
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
		int buffered = partition.leading(this.options.threadSize() * batchSize, this.dueGate::isDue);
		int n = Math.min(Math.min(workers, ceilDiv(buffered, batchSize)), this.options.threadSize());
		if (this.options.ordering() == Ordering.PARTITION) {
			n = 1;
		}
		List<Message<byte[]>> taken = partition.take(Math.min(buffered, n * batchSize));
		List<Message<byte[]>> run = this.selector.select(taken);
		if (run != taken) {
			partition.finishedUnsent(unselected(taken, run));
		}
		if (run.isEmpty()) {
			long batchId = partition.ledger.open(taken.get(0).offset(), taken.get(taken.size() - 1).offset(), 1, nowNanos);
			if (partition.ledger.complete(batchId, 0)) {
				partition.ledger.advance();
			}
			return -1;
		}
		if (this.options.ordering() == Ordering.KEY && !this.warnedKeyless) {
			warnIfKeyless(run);
		}
		List<List<Message<byte[]>>> parts = (this.options.ordering() == Ordering.KEY)
				? atMost(byKey(run, n), batchSize) : consecutive(run, n);
		long batchId = partition.ledger.open(taken.get(0).offset(), taken.get(taken.size() - 1).offset(),
				parts.size(), nowNanos);
		int started = 0;
		for (int i = 0; i < parts.size(); i++) {
			Slice slice = new Slice(partition, batchId, i, parts.get(i), partition.keyGate != null);
			if (partition.keyGate == null || partition.keyGate.enter(slice)) {
				runnable.add(slice);
				started++;
			}
		}
		return started;
	}

	/** Says once per container that keyless messages are not ordered under {@code key} ordering. */
	private void warnIfKeyless(List<Message<byte[]>> run) {
		for (Message<byte[]> message : run) {
			if (message.key() == null) {
				this.warnedKeyless = true;
				logger.warn("Listener '{}' uses key ordering but receives messages without a key (first: {}@{}); "
						+ "messages without a key are not ordered against each other. Send them with a key "
						+ "(OutgoingMessage.of(key, payload), send(topic, key, payload)) or set ordering to "
						+ "unordered or partition. This is logged once per container.",
						this.options.id(), message.topicPartition(), message.offset());
				return;
			}
		}
	}

	/** The messages of {@code taken} not in {@code selected}, an ordered subsequence of it. */
	private static List<Message<byte[]>> unselected(List<Message<byte[]>> taken, List<Message<byte[]>> selected) {
		List<Message<byte[]>> rest = new ArrayList<>(taken.size() - selected.size());
		int next = 0;
		for (Message<byte[]> message : taken) {
			if (next < selected.size() && selected.get(next) == message) {
				next++;
			}
			else {
				rest.add(message);
			}
		}
		return rest;
	}

	/** Consecutive chunks of near-equal size. */
	private static List<List<Message<byte[]>>> consecutive(List<Message<byte[]>> run, int n) {
		List<List<Message<byte[]>>> parts = new ArrayList<>(n);
		int chunk = ceilDiv(run.size(), n);
		for (int from = 0; from < run.size(); from += chunk) {
			parts.add(run.subList(from, Math.min(run.size(), from + chunk)));
		}
		return parts;
	}

	/**
	 * One key always lands in one slice, in offset order; keyless messages fill the smallest slice.
	 * Empty slices are dropped.
	 */
	private static List<List<Message<byte[]>>> byKey(List<Message<byte[]>> run, int n) {
		List<List<Message<byte[]>>> parts = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			parts.add(new ArrayList<>());
		}
		for (Message<byte[]> message : run) {
			int target = (message.key() != null) ? Math.floorMod(message.key().hashCode(), n) : smallest(parts);
			parts.get(target).add(message);
		}
		parts.removeIf(List::isEmpty);
		return parts;
	}

	/**
	 * Splits every part longer than {@code max} into consecutive chunks of at most {@code max}, in
	 * order. The chunks of one key chain through the key gate (they enter it in this order), so a
	 * hot key keeps its order without handing a listener more than {@code consumer-batch-size}.
	 */
	private static List<List<Message<byte[]>>> atMost(List<List<Message<byte[]>>> parts, int max) {
		List<List<Message<byte[]>>> bounded = new ArrayList<>(parts.size());
		for (List<Message<byte[]>> part : parts) {
			for (int from = 0; from < part.size(); from += max) {
				bounded.add(part.subList(from, Math.min(part.size(), from + max)));
			}
		}
		return bounded;
	}

	private static int smallest(List<List<Message<byte[]>>> parts) {
		int best = 0;
		for (int i = 1; i < parts.size(); i++) {
			if (parts.get(i).size() < parts.get(best).size()) {
				best = i;
			}
		}
		return best;
	}

	private static int ceilDiv(int a, int b) {
		return (a + b - 1) / b;
	}

}

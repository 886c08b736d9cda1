package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerState;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.RebalanceListener;
import io.batchconsumer.core.TopicPartition;

/**
 * The owner thread's loop: the only code that touches the {@link MessageSource}, the ledgers and
 * the buffers. Each turn handles the mailbox (completions and commands), commits what is due,
 * applies flow control, hands out thread batches, polls and hands out again. A revoke and the stop
 * end their partitions through {@link FinalDrain}. An interrupt of the owner thread asks for a
 * graceful stop (drain, final commit); workers are never interrupted.
 *
 * <p>Threading: {@link #run()} runs on the owner thread {@code batch-consumer-<id>-poll}. Workers
 * and API callers only {@link #post(Object)} to the mailbox, which wakes a blocked poll. Fields
 * without a note are owned by the owner thread.
 */
public final class PollLoop implements Runnable, RebalanceListener {

	private static final Logger logger = LoggerFactory.getLogger(PollLoop.class);

	private static final long UNAVAILABLE_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ContainerOptions options;

	private final MessageSource source;

	private final SliceRunner runner;

	private final ExecutorService workers;

	private final ContainerStatus status;

	private final Partitions partitions;

	private final ThreadBatchDispatcher dispatcher;

	private final FlowController flow;

	private final CommitScheduler commits;

	private final FinalDrain drain;

	/** Completions from workers and commands from callers. */
	private final Mailbox mailbox = new Mailbox();

	/** Written by the owner around each poll, read by posting threads to decide whether to wake it. */
	private volatile boolean inPoll;

	/** Cleared by {@link #requestStop(boolean)} from any thread. */
	private volatile boolean running = true;

	/** Set by {@link #requestStop(boolean)} for a crash-like stop: no drain, no commit. */
	private volatile boolean aborted;

	private boolean subscribed;

	private boolean paused;

	private long nextPollNanos;

	PollLoop(ContainerOptions options, MessageSource source, SliceRunner runner, ExecutorService workers,
			ContainerStatus status, MessageSelector selector, DueGate dueGate) {
		this.options = options;
		this.source = source;
		this.runner = runner;
		this.workers = workers;
		this.status = status;
		this.partitions = new Partitions(options.ordering());
		this.dispatcher = new ThreadBatchDispatcher(options, this.partitions, runner, workers, this::post, selector,
				dueGate);
		this.flow = new FlowController(options, status.counters());
		this.commits = new CommitScheduler(options.commitInterval(), source, status, System.nanoTime());
		this.drain = new FinalDrain(options, this.partitions, this.commits, this::waitForMailbox, () -> this.aborted);
	}

	@Override
	public void run() {
		try {
			this.status.state(ContainerState.RUNNING);
			while (this.running) {
				runOnce();
			}
			if (!this.aborted) {
				shutdown();
			}
			this.status.state(ContainerState.STOPPED);
		}
		catch (Throwable ex) {
			logger.error("Container '{}' failed; it consumes no more until restarted", this.options.id(), ex);
			this.status.state(ContainerState.FAILED);
		}
		finally {
			this.runner.halt();
			// Never shutdownNow: an interrupt inside JDBC makes H2 close its database file.
			this.workers.shutdown();
			warnOfOutlivingListeners();
			closeSource();
			this.status.publish(this.partitions.all(), this.dispatcher.busy(), this.source, this.paused);
			if (this.mailbox.wasInterrupted()) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Posts a completion or a command ({@link Runnable}) to the owner thread and wakes it.
	 * @param item a {@link Completion} or a {@link Runnable}
	 */
	void post(Object item) {
		this.mailbox.add(item);
		if (this.inPoll) {
			this.source.wakeup();
		}
	}

	/**
	 * Asks the loop to end.
	 * @param abort {@code true} to stop like a crash: no drain and no commit
	 */
	void requestStop(boolean abort) {
		if (abort) {
			this.aborted = true;
			this.runner.halt();
		}
		this.running = false;
		this.source.wakeup();
		this.mailbox.add((Runnable) () -> {
		});
	}

	private void runOnce() {
		try {
			if (!this.subscribed) {
				this.source.subscribe(this.options.topics(), this);
				this.subscribed = true;
			}
			handleMailbox();
			commitIfDue();
			applyFlowControl();
			dispatch();
			pollOnce();
			dispatch();
			this.status.publishIfDue(this.partitions.all(), this.dispatcher.busy(), this.source, this.paused);
		}
		catch (RuntimeException ex) {
			if (!this.running) {
				return;
			}
			logger.warn("Container '{}' cannot reach its source, trying again: {}", this.options.id(), ex.toString());
			this.status.sourceError(ex);
			waitForMailbox(UNAVAILABLE_BACKOFF_NANOS);
		}
	}

	private void pollOnce() {
		long now = System.nanoTime();
		long wait = Math.min(this.options.pollTimeout().toNanos(), nanosUntilSomethingIsDue(now));
		if (now < this.nextPollNanos) {
			waitForMailbox(Math.min(wait, this.nextPollNanos - now));
			return;
		}
		List<Message<byte[]>> messages;
		this.inPoll = true;
		try {
			if (!this.mailbox.isEmpty()) {
				wait = 0;
			}
			messages = this.source.poll(Duration.ofNanos(wait));
		}
		finally {
			this.inPoll = false;
		}
		this.status.sourceError(null);
		PartitionState partition = null;
		for (Message<byte[]> message : messages) {
			// A poll returns runs of one partition: look the state up once per run, not per message
			// (the lookup was ~7% of the owner thread at 1M records/s).
			if (partition == null || partition.partition.partition() != message.partition()
					|| !partition.partition.topic().equals(message.topic())) {
				partition = this.partitions.get(message.topicPartition());
			}
			if (partition != null) {
				partition.add(message);
			}
		}
		if (!messages.isEmpty() && !this.options.pullInterval().isZero()) {
			this.nextPollNanos = now + this.options.pullInterval().toNanos();
		}
	}

	/**
	 * How long the loop may block: until a commit falls due (only when one is pending) or a paused
	 * partition is to be looked at again or a delayed head falls due. Completions wake it earlier
	 * through the mailbox.
	 */
	private long nanosUntilSomethingIsDue(long now) {
		long due = this.dispatcher.nanosUntilHeadDue();
		for (PartitionState partition : this.partitions.all()) {
			if (partition.hasUncommittedProgress() && !this.commits.isInFlight()) {
				due = Math.min(due, this.commits.nanosUntilDue(now));
			}
			if (partition.flowPaused) {
				due = Math.min(due, this.flow.nanosUntilRecheck(partition, now));
			}
		}
		return due;
	}

	private void handleMailbox() {
		Object item;
		while ((item = this.mailbox.poll()) != null) {
			handle(item);
		}
	}

	/** Waits for and handles mail; an interrupt of the owner thread asks for a (graceful) stop. */
	private void waitForMailbox(long nanos) {
		Object item = this.mailbox.poll(nanos);
		if (item != null) {
			handle(item);
			handleMailbox();
		}
		if (this.mailbox.wasInterrupted()) {
			this.running = false;
		}
	}

	private void handle(Object item) {
		if (item instanceof Completion completion) {
			complete(completion);
		}
		else {
			((Runnable) item).run();
		}
	}

	private void complete(Completion completion) {
		this.dispatcher.complete(completion);
	}

	private void dispatch() {
		if (!this.paused) {
			this.dispatcher.dispatch();
		}
	}

	private void applyFlowControl() {
		this.flow.apply(this.partitions.all(), this.paused, this.source, System.nanoTime());
	}

	private void commitIfDue() {
		if (!this.aborted) {
			this.commits.commitIfDue(this.partitions.all(), System.nanoTime());
		}
	}

	private void shutdown() {
		this.status.state(ContainerState.STOPPING);
		List<PartitionState> states = this.partitions.all();
		StopLog stopLog = StopLog.drainStarted(this.options.id(), states, this.options.shutdownTimeout().toMillis());
		this.drain.drain(states);
		stopLog.drained(states);
		this.drain.commit(states);
		stopLog.committed(states);
		for (PartitionState state : states) {
			this.partitions.remove(state.partition);
		}
	}

	/** They finish on their own; their completions are ignored, their messages delivered again. */
	private void warnOfOutlivingListeners() {
		List<String> outliving = this.dispatcher.onWorkers();
		if (!outliving.isEmpty()) {
			logger.warn("Container '{}' stopped while {} listener call(s) still ran; they are not interrupted and "
					+ "finish on their own, their results are ignored and their messages delivered again: {}",
					this.options.id(), outliving.size(), outliving);
		}
	}

	private void closeSource() {
		try {
			this.source.close();
		}
		catch (RuntimeException ex) {
			logger.warn("Container '{}' could not close its source: {}", this.options.id(), ex.toString());
		}
	}

	@Override
	public void onAssigned(Collection<TopicPartition> assigned) {
		for (TopicPartition partition : assigned) {
			this.partitions.assign(partition);
		}
		logger.info("Container '{}' was assigned {}", this.options.id(), assigned);
	}

	@Override
	public void onRevoked(Collection<TopicPartition> revoked) {
		this.drain.drainAndCommit(this.partitions.of(revoked));
		revoked.forEach(this.partitions::remove);
		logger.info("Container '{}' gave up {}", this.options.id(), revoked);
	}

	@Override
	public void onLost(Collection<TopicPartition> lost) {
		lost.forEach(this.partitions::remove);
		logger.warn("Container '{}' lost {}; their uncommitted work will be delivered again", this.options.id(), lost);
	}

	// Commands, run on the owner thread through the mailbox.

	void pauseAll(boolean pause) {
		this.paused = pause;
		this.status.state(pause ? ContainerState.PAUSED : ContainerState.RUNNING);
	}

	void pausePartition(TopicPartition partition, boolean pause) {
		PartitionState state = this.partitions.get(partition);
		if (state == null) {
			throw new IllegalArgumentException(partition + " is not assigned to container '" + this.options.id() + "'");
		}
		state.userPaused = pause;
	}

	void seek(TopicPartition partition, long offset) {
		PartitionState old = this.partitions.get(partition);
		if (old == null) {
			throw new IllegalArgumentException(partition + " is not assigned to container '" + this.options.id() + "'");
		}
		if (offset < 0) {
			throw new IllegalArgumentException("offset must be zero or more but was " + offset);
		}
		// A new epoch: slices of the old position still running commit nothing when they end.
		PartitionState fresh = this.partitions.assign(partition);
		fresh.sourcePaused = old.sourcePaused;
		fresh.userPaused = old.userPaused;
		this.source.seek(partition, offset);
		this.source.commitSync(Map.of(partition, offset));
		this.status.committed(List.of(fresh), Map.of(partition, offset), null);
	}

}

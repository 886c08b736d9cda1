package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.spi.MessageSource;

/**
 * The owner thread's loop: the only code that touches the {@link MessageSource}, the ledgers and
 * the buffers. Each turn handles the mailbox (completions and commands), commits what is due,
 * applies flow control, hands out thread batches, polls (when {@link PollPacing} lets it) and hands
 * out again. A revoke and the stop end their partitions through {@link FinalDrain}. An interrupt of
 * the owner thread asks for a graceful stop (drain, final commit); workers are never interrupted.
 *
 * <p>The rebalance callbacks and the operator's commands are {@link OwnerCommands}; every commit goes
 * through the {@link CommitScheduler}; the time comes from the injected {@link Ticker}.
 *
 * <p>Threading: {@link #run()} runs on the owner thread {@code batch-consumer-<id>-poll}. Workers
 * and API callers only {@link #post(MailItem)} to the mailbox, which wakes a blocked poll. Fields
 * without a note are owned by the owner thread.
 */
final class PollLoop implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(PollLoop.class);

	private static final long UNAVAILABLE_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ContainerOptions options;

	private final MessageSource source;

	private final SliceRunner runner;

	private final ExecutorService workers;

	private final PublishedState status;

	private final Partitions partitions;

	private final ThreadBatchDispatcher dispatcher;

	private final FlowController flow;

	private final CommitScheduler commits;

	private final FinalDrain drain;

	private final OwnerCommands commands;

	private final Ticker ticker;

	/** Completions from workers and commands from callers. */
	private final Mailbox mailbox;

	/** Written by the owner around each poll, read by posting threads to decide whether to wake it. */
	private volatile boolean inPoll;

	/** Cleared by {@link #requestStop(boolean)} from any thread. */
	private volatile boolean running = true;

	/** Set by {@link #requestStop(boolean)} for a crash-like stop: no drain, no commit. */
	private volatile boolean aborted;

	private final PollPacing pacing;

	private final SourceOutage outage;

	private boolean subscribed;

	PollLoop(ContainerOptions options, MessageSource source, SliceRunner runner, ExecutorService workers,
			PublishedState status, Ticker ticker, MessageSelector selector, DueGate dueGate) {
		this(options, source, runner, workers, status, ticker, selector, dueGate, Parking.SYSTEM);
	}

	/**
	 * The loop with the owner's waits for its mailbox going through {@code parking} (a test's
	 * simulation makes them virtual).
	 */
	PollLoop(ContainerOptions options, MessageSource source, SliceRunner runner, ExecutorService workers,
			PublishedState status, Ticker ticker, MessageSelector selector, DueGate dueGate, Parking parking) {
		this.mailbox = new Mailbox(ticker, parking);
		this.ticker = ticker;
		this.options = options;
		this.source = source;
		this.runner = runner;
		this.workers = workers;
		this.status = status;
		this.partitions = new Partitions(options.ordering(), runner.observer(), runner.listener()::epochStarted,
				runner::wakeBackoffs);
		this.dispatcher = new ThreadBatchDispatcher(options, this.partitions, runner, workers, this::post, selector,
				dueGate, status.counters());
		RetryHolds holds = RetryHolds.of(options, runner.retryQueue(), this.partitions, ticker);
		if (holds != null) {
			this.partitions.whenAssigned(holds::assigned);
			this.dispatcher.holdKeysForRetry(holds);
		}
		this.flow = new FlowController(options, status.counters());
		this.pacing = new PollPacing(options);
		this.outage = new SourceOutage(options.id(), ticker);
		this.commits = new CommitScheduler(options.commitInterval(), source, status, ticker.nanoTime());
		this.drain = new FinalDrain(options, this.partitions, this.commits, (nanos) -> waitForMailbox(nanos, 1),
				() -> this.aborted, ticker, this.dispatcher::withdrawQueued);
		this.commands = new OwnerCommands(options, source, status, this.partitions, this.commits, this.drain,
				this.dispatcher::withdrawQueued);
	}

	@Override
	public void run() {
		try {
			this.status.state(LifecyclePhase.RUNNING);
			this.dispatcher.ownerStarts(this.ticker.threadCpuNanos(), this.ticker.nanoTime());
			while (this.running) {
				runOnce();
			}
			if (!this.aborted) {
				shutdown();
			}
			this.status.state(LifecyclePhase.STOPPED);
		}
		catch (Throwable ex) {
			logger.error("Container '{}' failed; it consumes no more until restarted", this.options.id(), ex);
			this.status.state(LifecyclePhase.FAILED);
		}
		finally {
			this.runner.halt();
			// Never shutdownNow: an interrupt inside JDBC makes H2 close its database file.
			this.workers.shutdown();
			warnOfOutlivingListeners();
			closeSource();
			this.status.publish(this.partitions.all(), this.dispatcher.busyThreads(), this.source, this.commands.isPaused());
			if (this.mailbox.wasInterrupted()) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Posts a completion or a command to the owner thread and wakes it; any thread. */
	void post(MailItem item) {
		this.mailbox.add(item);
		if (this.inPoll) {
			this.source.wakeup();
		}
	}

	/** Takes tuned options (owner thread): the next slices, checks and statistics use them. */
	void retune(ContainerOptions tuned) {
		this.dispatcher.retune(tuned);
		this.flow.retune(tuned);
		this.pacing.retune(tuned);
		this.status.threadSize(tuned.threadSize());
	}

	/** The rebalance callbacks and operator commands; call them on the owner thread only. */
	OwnerCommands commands() {
		return this.commands;
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
		this.mailbox.add(Command.WAKE_UP);
	}

	private void runOnce() {
		try {
			if (!this.subscribed) {
				this.source.subscribe(this.options.topics(), this.commands);
				this.subscribed = true;
			}
			handleMailbox();
			commitIfDue();
			applyFlowControl();
			dispatch();
			int polled = pollOnce();
			dispatch();
			if (this.dispatcher.weighsOwner()) {
				this.dispatcher.ownerSpent(this.ticker.threadCpuNanos(), polled, this.ticker.nanoTime());
			}
			this.status.publishIfDue(this.partitions.all(), this.dispatcher.busyThreads(), this.source,
					this.commands.isPaused());
		}
		catch (RuntimeException ex) {
			if (!this.running) {
				return;
			}
			this.outage.failed(ex);
			this.status.sourceError(ex);
			waitForMailbox(UNAVAILABLE_BACKOFF_NANOS, 1);
		}
	}

	/** Polls unless pacing holds the poll back; returns the messages polled. */
	private int pollOnce() {
		long now = this.ticker.nanoTime();
		long wait = Math.min(this.options.pollTimeout().toNanos(), nanosUntilSomethingIsDue(now));
		long hold = this.pacing.holdNanos(this.partitions.all(), this.dispatcher.busy(), now);
		if (hold > 0) {
			waitForMailbox(Math.min(wait, hold), this.dispatcher.completionsToAwait());
			return 0;
		}
		List<Message<byte[]>> messages;
		this.inPoll = true;
		try {
			messages = this.source.poll(Duration.ofNanos(this.mailbox.isEmpty() ? wait : 0));
		}
		finally {
			this.inPoll = false;
		}
		this.status.sourceError(null);
		this.outage.reached();
		this.partitions.buffer(messages);
		this.pacing.polled(now, !messages.isEmpty());
		return messages.size();
	}

	/**
	 * How long the loop may block: until a commit falls due (only when one is pending) or a paused
	 * partition is to be looked at again or held-back messages fall due (a delayed head, a batch's
	 * wait to fill, the rate limit's tokens). Completions wake it earlier
	 * through the mailbox.
	 */
	private long nanosUntilSomethingIsDue(long now) {
		long due = Math.min(this.commits.nanosUntilDue(this.partitions.all(), now), this.dispatcher.nanosUntilHeldBackIsDue(now));
		for (PartitionState partition : this.partitions.all()) {
			if (partition.flow().isPaused()) {
				due = Math.min(due, this.flow.nanosUntilRecheck(partition, now));
			}
		}
		return due;
	}

	private void handleMailbox() {
		MailItem item;
		while ((item = this.mailbox.poll()) != null) {
			handle(item);
		}
	}

	/** Waits for a command or that many completions, handles the mail; an interrupt asks for a stop. */
	private void waitForMailbox(long nanos, int completions) {
		MailItem item = this.mailbox.poll(nanos, completions);
		if (item != null) {
			handle(item);
			handleMailbox();
		}
		if (this.mailbox.wasInterrupted()) {
			this.running = false;
		}
	}

	private void handle(MailItem item) {
		if (item instanceof Completion completion) {
			this.dispatcher.complete(completion);
		}
		else if (item instanceof Command command) {
			command.action().run();
		}
	}

	private void dispatch() {
		if (!this.commands.isPaused()) {
			this.dispatcher.dispatch(this.ticker.nanoTime());
		}
	}

	private void applyFlowControl() {
		this.flow.apply(this.partitions.all(), this.commands.isPaused(), this.source, this.ticker.nanoTime());
	}

	private void commitIfDue() {
		if (!this.aborted) {
			this.commits.commitIfDue(this.partitions.all(), this.ticker.nanoTime());
		}
	}

	private void shutdown() {
		this.status.state(LifecyclePhase.STOPPING);
		List<PartitionState> states = this.partitions.all();
		this.drain.begin(states); // takes back the slices not started, before the log counts those in flight
		StopLog stopLog = StopLog.drainStarted(this.options.id(), states, this.options.shutdownTimeout().toMillis(),
				this.ticker);
		this.drain.await(states);
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

}

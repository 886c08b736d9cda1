package io.batchconsumer.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.Tuning;
import io.batchconsumer.core.WorkerThreads;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * Wires one container: the owner thread running the {@link PollLoop}, and the worker pool.
 *
 * <p>Threading: the owner thread is {@code batch-consumer-<id>-poll}; workers are
 * {@code batch-consumer-<id>-worker-<n>}, a fixed pool over an unbounded queue, so no slice is
 * ever dropped; they are platform threads, or virtual ones ({@link WorkerThreads#VIRTUAL}). Methods
 * may be called from any thread: commands go through the mailbox.
 */
public final class ContainerEngine {

	private static final Logger logger = LoggerFactory.getLogger(ContainerEngine.class);

	private final ContainerOptions options;

	/** The options now: {@link #options} with the runtime changes; written by the owner thread. */
	private volatile ContainerOptions current;

	private final PublishedState status;

	private final PollLoop loop;

	/** Used here only by {@link #tune} on the owner thread (runtime pull size). */
	private final MessageSource source;

	private final Thread owner;

	private final ThreadPoolExecutor workers;

	/** Set by the first {@link #start()} or {@link #stop}: an engine runs once, and never after a stop. */
	private final AtomicBoolean claimed = new AtomicBoolean();

	/** Whether {@link #stop} came before any start; words a later start's refusal only. */
	private volatile boolean stoppedUnstarted;

	/**
	 * Creates the engine; nothing runs before {@link #start()}.
	 * @param options the options
	 * @param source the source, used by the owner thread only
	 * @param listener the listener
	 * @param deadLetterSink where failed messages go
	 * @param observer told of every processed slice
	 */
	public ContainerEngine(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer) {
		this(options, source, listener, deadLetterSink, observer, WorkerThreads.PLATFORM);
	}

	/**
	 * Creates the engine with workers on platform or virtual threads; nothing runs before {@link #start()}.
	 * @param options the options
	 * @param source the source, used by the owner thread only
	 * @param listener the listener
	 * @param deadLetterSink where failed messages go
	 * @param observer told of every processed slice
	 * @param threads what the workers run on
	 */
	public ContainerEngine(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, WorkerThreads threads) {
		this(options, source, listener, deadLetterSink, observer, threads, null, null, Clock.systemUTC());
	}

	/**
	 * Creates the engine with a message filter, a retry queue and a clock; nothing runs before
	 * {@link #start()}.
	 * @param options the options
	 * @param source the source, used by the owner thread only
	 * @param listener the listener
	 * @param deadLetterSink where failed messages go
	 * @param observer told of every processed slice
	 * @param threads what the workers run on
	 * @param filter applied after the tag subscription, {@code null} for none
	 * @param retryQueue where retries above {@code retry.blocking-limit} go, {@code null} for none;
	 *        the container subscribes to its topic too
	 * @param clock compared with message timestamps for the {@code delay}
	 * @throws io.batchconsumer.core.InvalidOptionException when a retry queue would be used under
	 *         {@code key} or {@code partition} ordering
	 */
	public ContainerEngine(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, WorkerThreads threads, MessageFilter filter,
			RetryQueue retryQueue, Clock clock) {
		RetryQueue used = RetryHandOff.isUsed(options, retryQueue) ? retryQueue : null;
		options = RetryHandOff.subscribed(options, used);
		this.options = options;
		this.current = options;
		this.source = source;
		this.status = new PublishedState(options.id(), options.threadSize(), Ticker.SYSTEM);
		ThreadFactory workerThreads = (threads == WorkerThreads.VIRTUAL)
				? threads.factory("batch-consumer-" + options.id() + "-worker-")
				: named("batch-consumer-" + options.id() + "-worker-");
		this.workers = new ThreadPoolExecutor(options.threadSize(), options.threadSize(), 0L,
				TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), workerThreads);
		SliceRunner runner = new SliceRunner(options, listener, deadLetterSink, observer, this.status, used);
		MessageSelector selector = new MessageSelector(options.id(), options.tagExpression(), filter,
				this.status.counters());
		this.loop = new PollLoop(options, source, runner, this.workers, this.status, Ticker.SYSTEM, selector,
				new DueGate(options.delay(), clock));
		this.owner = new Thread(this.loop, "batch-consumer-" + options.id() + "-poll");
	}

	public void start() {
		if (!this.claimed.compareAndSet(false, true)) {
			throw new IllegalStateException("container '" + this.options.id() + "' was "
					+ (this.stoppedUnstarted ? "stopped" : "started") + " already; a container runs once");
		}
		this.owner.start();
	}

	/**
	 * Stops and waits until the owner thread ended. An engine that never started closes its source
	 * and its worker pool here, as the owner thread would have on its way out, and cannot start later.
	 * @param abort {@code true} to stop like a crash: no drain, no commit
	 * @return whether the owner thread ended in time
	 */
	public boolean stop(boolean abort) {
		if (this.claimed.compareAndSet(false, true)) {
			this.stoppedUnstarted = true;
			closeUnstarted();
			return true;
		}
		if (this.stoppedUnstarted) {
			return true;
		}
		this.loop.requestStop(abort);
		try {
			Duration wait = this.options.shutdownTimeout().plusSeconds(10);
			// Workers are never interrupted (H2 closes its file on an interrupt): a listener that
			// outlives the drain finishes on its own; the owner logged it, its completion is ignored.
			this.owner.join(wait.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return !this.owner.isAlive();
	}

	/**
	 * Runs a command on the owner thread.
	 * @param command the command
	 * @return completed when it ran, exceptionally when it threw or the container is not running
	 */
	CompletableFuture<Void> command(java.util.function.Consumer<OwnerCommands> command) {
		return onOwner(() -> {
			command.accept(this.loop.commands());
			return null;
		});
	}

	/**
	 * Changes tunable options on the running container (see {@link io.batchconsumer.core.Tuning}).
	 * @param changes new values by option key
	 * @return the new options once applied by the owner thread
	 */
	public CompletableFuture<ContainerOptions> tune(Map<String, ?> changes) {
		return onOwner(() -> {
			ContainerOptions tuned = Tuning.apply(this.current, changes);
			if (tuned.pullBatchSize() != this.current.pullBatchSize()) {
				this.source.pullBatchSize(tuned.pullBatchSize());
			}
			resizeWorkers(tuned.threadSize());
			this.loop.retune(tuned);
			this.current = tuned;
			return tuned;
		});
	}

	/**
	 * The options now: those given, with the retry queue's topic added to the topics when it is
	 * used, and every runtime change.
	 * @return the options
	 */
	public ContainerOptions options() {
		return this.current;
	}

	private <T> CompletableFuture<T> onOwner(Supplier<T> action) {
		CompletableFuture<T> done = new CompletableFuture<>();
		if (!this.owner.isAlive()) {
			done.completeExceptionally(new IllegalStateException("container '" + this.options.id() + "' is not running"));
			return done;
		}
		this.loop.post(new Command(() -> {
			try {
				done.complete(action.get());
			}
			catch (RuntimeException ex) {
				done.completeExceptionally(ex);
			}
		}));
		return done;
	}

	/** What the owner thread closes on its way out, for an engine whose owner never ran. */
	private void closeUnstarted() {
		this.workers.shutdown();
		try {
			this.source.close();
		}
		catch (RuntimeException ex) {
			logger.warn("Container '{}' could not close its source: {}", this.options.id(), ex.toString());
		}
		this.status.state(LifecyclePhase.STOPPED);
	}

	/**
	 * Grows the maximum first, shrinks the core first: the pool never has core above maximum. On a
	 * shrink the running slices finish (workers are never interrupted), and a worker over the new
	 * maximum retires when its slice ends, before it takes a queued one: no queued slice starts
	 * while the running ones are at or above the new size.
	 */
	private void resizeWorkers(int threads) {
		if (threads > this.workers.getMaximumPoolSize()) {
			this.workers.setMaximumPoolSize(threads);
			this.workers.setCorePoolSize(threads);
		}
		else if (threads < this.workers.getCorePoolSize()) {
			this.workers.setCorePoolSize(threads);
			this.workers.setMaximumPoolSize(threads);
		}
	}

	public CompletableFuture<Void> pause(boolean pause) {
		return command((commands) -> commands.pauseAll(pause));
	}

	public CompletableFuture<Void> pause(TopicPartition partition, boolean pause) {
		return command((commands) -> commands.pausePartition(partition, pause));
	}

	public CompletableFuture<Void> seek(TopicPartition partition, long offset) {
		return command((commands) -> commands.seek(partition, offset));
	}

	public ContainerSnapshot stats() {
		return this.status.stats();
	}

	public boolean isAlive() {
		return this.owner.isAlive();
	}

	private static ThreadFactory named(String prefix) {
		AtomicInteger next = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + next.incrementAndGet());
			thread.setDaemon(false);
			return thread;
		};
	}

}

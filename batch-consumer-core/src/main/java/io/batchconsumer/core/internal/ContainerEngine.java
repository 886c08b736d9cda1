package io.batchconsumer.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerStats;
import io.batchconsumer.core.DeadLetterSink;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.RetryQueue;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;

/**
 * Wires one container: the owner thread running the {@link PollLoop}, and the worker pool.
 *
 * <p>Threading: the owner thread is {@code batch-consumer-<id>-poll}; workers are
 * {@code batch-consumer-<id>-worker-<n>}, a fixed pool over an unbounded queue, so no slice is
 * ever dropped. Methods may be called from any thread: commands go through the mailbox.
 */
public final class ContainerEngine {

	private final ContainerOptions options;

	private final ContainerStatus status;

	private final PollLoop loop;

	private final Thread owner;

	private final ExecutorService workers;

	private final AtomicBoolean started = new AtomicBoolean();

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
		this(options, source, listener, deadLetterSink, observer, null, null, Clock.systemUTC());
	}

	/**
	 * Creates the engine with a message filter and a clock; nothing runs before {@link #start()}.
	 * @param options the options
	 * @param source the source, used by the owner thread only
	 * @param listener the listener
	 * @param deadLetterSink where failed messages go
	 * @param observer told of every processed slice
	 * @param filter applied after the tag subscription, {@code null} for none
	 * @param retryQueue where retries above {@code retry.blocking-limit} go, {@code null} for none;
	 *        the container subscribes to its topic too
	 * @param clock compared with message timestamps for the {@code delay}
	 * @throws io.batchconsumer.core.InvalidOptionException when a retry queue would be used under
	 *         {@code key} or {@code partition} ordering
	 */
	public ContainerEngine(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, MessageFilter filter, RetryQueue retryQueue,
			Clock clock) {
		if (retryQueue != null && options.usesRetryQueue()) {
			checkOrderingAllowsRetryQueue(options);
			java.util.List<String> topics = new java.util.ArrayList<>(options.topics());
			topics.add(retryQueue.topic());
			options = options.toBuilder().topics(topics).build();
		}
		else {
			retryQueue = null;
		}
		this.options = options;
		this.status = new ContainerStatus(options.id(), options.threadSize());
		this.workers = new ThreadPoolExecutor(options.threadSize(), options.threadSize(), 0L,
				TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), named("batch-consumer-" + options.id() + "-worker-"));
		SliceRunner runner = new SliceRunner(options, listener, deadLetterSink, observer, this.status, retryQueue);
		MessageSelector selector = new MessageSelector(options.id(), options.tagExpression(), filter,
				this.status.counters());
		this.loop = new PollLoop(options, source, runner, this.workers, this.status, selector,
				new DueGate(options.delay(), clock));
		this.owner = new Thread(this.loop, "batch-consumer-" + options.id() + "-poll");
	}

	/**
	 * A message sent to the retry queue lets later messages of its key pass it, so the retry queue
	 * and {@code key}/{@code partition} ordering are refused together, naming the properties.
	 */
	private static void checkOrderingAllowsRetryQueue(ContainerOptions options) {
		if (options.ordering() != io.batchconsumer.core.Ordering.UNORDERED) {
			throw io.batchconsumer.core.ContainerOption.RETRY_BLOCKING_LIMIT.invalid("(" + options.retryBlockingLimit()
					+ ") is below a back-off of retry.backoff/retry.levels, so failed messages of listener '"
					+ options.id() + "' would go to the retry queue and later messages of their key would pass them, "
					+ "which ordering=" + options.ordering().name().toLowerCase(java.util.Locale.ROOT)
					+ " forbids: set ordering=unordered, or raise retry.blocking-limit above the longest back-off "
					+ "(retries then wait on their worker)");
		}
	}

	public void start() {
		if (!this.started.compareAndSet(false, true)) {
			throw new IllegalStateException("container '" + this.options.id() + "' was started already");
		}
		this.owner.start();
	}

	/**
	 * Stops and waits until the owner thread ended.
	 * @param abort {@code true} to stop like a crash: no drain, no commit
	 * @return whether the owner thread ended in time
	 */
	public boolean stop(boolean abort) {
		if (!this.started.get()) {
			this.status.state(io.batchconsumer.core.ContainerState.STOPPED);
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

	public CompletableFuture<Void> command(java.util.function.Consumer<PollLoop> command) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		if (!this.owner.isAlive()) {
			done.completeExceptionally(new IllegalStateException("container '" + this.options.id() + "' is not running"));
			return done;
		}
		this.loop.post((Runnable) () -> {
			try {
				command.accept(this.loop);
				done.complete(null);
			}
			catch (RuntimeException ex) {
				done.completeExceptionally(ex);
			}
		});
		return done;
	}

	public CompletableFuture<Void> pause(boolean pause) {
		return command((loop) -> loop.pauseAll(pause));
	}

	public CompletableFuture<Void> pause(TopicPartition partition, boolean pause) {
		return command((loop) -> loop.pausePartition(partition, pause));
	}

	public CompletableFuture<Void> seek(TopicPartition partition, long offset) {
		return command((loop) -> loop.seek(partition, offset));
	}

	/**
	 * The options the engine runs with: those given, with the retry queue's topic added to the
	 * topics when it is used.
	 * @return the options
	 */
	public ContainerOptions options() {
		return this.options;
	}

	public ContainerStats stats() {
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

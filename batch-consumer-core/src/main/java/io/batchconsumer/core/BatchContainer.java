package io.batchconsumer.core;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.batchconsumer.core.internal.ContainerEngine;

/**
 * A thread-batch consumer: one owner thread polls a {@link MessageSource}, hands thread batches to
 * a pool of {@link ContainerOptions#threadSize()} workers running the {@link SliceListener}, and
 * commits each partition only up to the end of its contiguous run of finished batches.
 *
 * <p>Threading: every method may be called from any thread. Commands ({@link #pause()},
 * {@link #seek}) are carried out by the owner thread; their futures complete when they were.
 */
public final class BatchContainer {

	private final ContainerOptions options;

	private final ContainerEngine engine;

	/**
	 * Creates a container.
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink) {
		this(options, source, listener, deadLetterSink, ContainerObserver.NONE);
	}

	/**
	 * Creates a container with an observer of processed slices.
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt; each stored dead letter is
	 *        logged at WARN (listener, topic, partition, offset, attempts, error class)
	 * @param observer told of every processed slice, on worker threads
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer) {
		this(options, source, listener, deadLetterSink, observer, WorkerThreads.PLATFORM);
	}

	/**
	 * Creates a container with an observer, its workers on platform or virtual threads.
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt
	 * @param observer told of every processed slice, on worker threads
	 * @param threads what the {@link ContainerOptions#threadSize()} workers run on
	 * @throws IllegalStateException for {@link WorkerThreads#VIRTUAL} before Java 21
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, WorkerThreads threads) {
		this(options, source, listener, deadLetterSink, observer, threads, null, null, java.time.Clock.systemUTC());
	}

	/**
	 * Creates a container with an observer and a {@link MessageFilter} applied after the tag
	 * subscription ({@link ContainerOptions#tags()}).
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt
	 * @param observer told of every processed slice, on worker threads
	 * @param filter decides which selected messages reach the listener, {@code null} for all
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, MessageFilter filter) {
		this(options, source, listener, deadLetterSink, observer, filter, java.time.Clock.systemUTC());
	}

	/**
	 * Creates a container with a clock for the {@code delay}, for tests that move time by hand.
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt
	 * @param observer told of every processed slice, on worker threads
	 * @param filter decides which selected messages reach the listener, {@code null} for all
	 * @param clock compared with message timestamps for the {@code delay}
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, MessageFilter filter, java.time.Clock clock) {
		this(options, source, listener, deadLetterSink, observer, filter, null, clock);
	}

	/**
	 * Creates a container whose retries with a back-off above {@code retry.blocking-limit} go to a
	 * retry queue instead of waiting on their worker (see {@link RetryQueue}).
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt
	 * @param observer told of every processed slice, on worker threads
	 * @param filter decides which selected messages reach the listener, {@code null} for all
	 * @param retryQueue the transport's retry queue for this container ({@link Transport#retryQueue}),
	 *        {@code null} for none
	 * @param clock compared with message timestamps for the {@code delay}
	 * @throws InvalidOptionException when the retry queue would be used with {@code key} or
	 *         {@code partition} ordering
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, MessageFilter filter, RetryQueue retryQueue,
			java.time.Clock clock) {
		this(options, source, listener, deadLetterSink, observer, WorkerThreads.PLATFORM, filter, retryQueue, clock);
	}

	/**
	 * Creates a container with every part: worker threads, message filter, retry queue and clock.
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt
	 * @param observer told of every processed slice, on worker threads
	 * @param threads what the {@link ContainerOptions#threadSize()} workers run on
	 * @param filter decides which selected messages reach the listener, {@code null} for all
	 * @param retryQueue the transport's retry queue for this container, {@code null} for none
	 * @param clock compared with message timestamps for the {@code delay}
	 * @throws IllegalStateException for {@link WorkerThreads#VIRTUAL} before Java 21
	 * @throws InvalidOptionException when the retry queue would be used with {@code key} or
	 *         {@code partition} ordering
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink, ContainerObserver observer, WorkerThreads threads, MessageFilter filter,
			RetryQueue retryQueue, java.time.Clock clock) {
		Objects.requireNonNull(options, "options");
		this.engine = new ContainerEngine(options, Objects.requireNonNull(source, "source"),
				Objects.requireNonNull(listener, "listener"),
				new DeadLetterLog(options.id(), Objects.requireNonNull(deadLetterSink, "deadLetterSink")),
				Objects.requireNonNull(observer, "observer"), Objects.requireNonNull(threads, "threads"), filter,
				retryQueue, Objects.requireNonNull(clock, "clock"));
		this.options = this.engine.options();
	}

	/** Starts the owner thread. A container starts once. */
	public void start() {
		this.engine.start();
	}

	/**
	 * Stops gracefully: no new work, in-flight slices finish (up to
	 * {@link ContainerOptions#shutdownTimeout()}), the watermarks are committed, the source closed.
	 * Blocks until done. Workers are never interrupted (an interrupt inside JDBC makes H2 close its
	 * database file): a listener still running after the timeout finishes on its own, its result is
	 * ignored and its messages, not committed, are delivered again; a WARN names it. A container
	 * that never started closes its source here and cannot start afterwards.
	 * @return whether the container stopped in time
	 */
	public boolean stop() {
		return this.engine.stop(false);
	}

	/**
	 * Stops like a crash: no drain and no further commit. What was not committed is delivered again
	 * to the next consumer. Meant for tests and for giving up on a stuck listener, which is not
	 * interrupted either: it finishes on its own and its result is ignored.
	 * @return whether the owner thread ended in time
	 */
	public boolean abort() {
		return this.engine.stop(true);
	}

	/**
	 * Stops delivering new work (in-flight slices finish) until {@link #resume()}.
	 * @return completes when the owner thread applied it
	 */
	public CompletableFuture<Void> pause() {
		return this.engine.pause(true);
	}

	/**
	 * Delivers again after {@link #pause()}.
	 * @return completes when the owner thread applied it
	 */
	public CompletableFuture<Void> resume() {
		return this.engine.pause(false);
	}

	/**
	 * Stops delivering one partition.
	 * @param partition an assigned partition
	 * @return completes when applied, or fails when the partition is not assigned
	 */
	public CompletableFuture<Void> pause(TopicPartition partition) {
		return this.engine.pause(partition, true);
	}

	/**
	 * Delivers one partition again.
	 * @param partition an assigned partition
	 * @return completes when applied, or fails when the partition is not assigned
	 */
	public CompletableFuture<Void> resume(TopicPartition partition) {
		return this.engine.pause(partition, false);
	}

	/**
	 * Moves a partition to an offset and commits it there. Starts a new epoch: in-flight work of
	 * the old position still finishes but commits nothing. A seek while the partition is being
	 * revoked wins over the revoke's final commit.
	 * @param partition an assigned partition
	 * @param offset the next offset to read
	 * @return completes when applied, or fails when the partition is not assigned
	 */
	public CompletableFuture<Void> seek(TopicPartition partition, long offset) {
		return this.engine.seek(partition, offset);
	}

	/**
	 * A snapshot of the container, refreshed by the owner thread about every 100 ms.
	 * @return the statistics
	 */
	public ContainerStats stats() {
		return this.engine.stats();
	}

	/**
	 * Whether the owner thread is running.
	 * @return {@code true} between start and stop
	 */
	public boolean isRunning() {
		return this.engine.isAlive();
	}

	/**
	 * The container id.
	 * @return the id
	 */
	public String id() {
		return this.options.id();
	}

	/**
	 * The options.
	 * @return the options
	 */
	public ContainerOptions options() {
		return this.engine.options();
	}

	/**
	 * Changes options of the running container (see {@link Tuning}: thread size, slice size, pull
	 * size, flow-control thresholds), without losing, repeating or reordering a message: slices
	 * handed out run as formed, the next ones take the new values.
	 * @param changes new values by option key, e.g. {@code Map.of("thread-size", 16)}
	 * @return completes with the new options once the owner thread applied them; fails with an
	 *         {@link IllegalArgumentException} (a key that is not tunable, a bad value naming its
	 *         option) or an {@link UnsupportedOperationException} (the source cannot change its pull
	 *         size), in which case nothing changed
	 */
	public CompletableFuture<ContainerOptions> tune(Map<String, ?> changes) {
		return this.engine.tune(changes);
	}

}

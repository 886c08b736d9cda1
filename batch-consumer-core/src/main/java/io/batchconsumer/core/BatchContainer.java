package io.batchconsumer.core;

import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.batchconsumer.core.internal.ContainerEngine;
import io.batchconsumer.core.internal.DeadLetterLog;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RetryQueue;
import io.batchconsumer.core.spi.Transport;

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
	 * Creates a container of the parts every container needs; {@link #builder} adds the optional
	 * ones.
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt; each stored dead letter is
	 *        logged at WARN (listener, topic, partition, offset, attempts, error class)
	 */
	public BatchContainer(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink) {
		this(builder(options, source, listener, deadLetterSink));
	}

	private BatchContainer(Builder builder) {
		this.engine = new ContainerEngine(builder.options, builder.source, builder.listener,
				new DeadLetterLog(builder.options.id(), builder.deadLetterSink), builder.observer, builder.threads,
				builder.filter, builder.retryQueue, builder.clock);
		this.options = this.engine.options();
	}

	/**
	 * Starts a builder with the parts every container needs.
	 * @param options the options
	 * @param source the source, which the container owns and closes
	 * @param listener the listener
	 * @param deadLetterSink where messages go after the last attempt
	 * @return a builder whose other parts have their defaults: no observer, platform threads, no
	 *         filter, no retry queue, the system clock
	 */
	public static Builder builder(ContainerOptions options, MessageSource source, SliceListener listener,
			DeadLetterSink deadLetterSink) {
		return new Builder(options, source, listener, deadLetterSink);
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
	public ContainerSnapshot stats() {
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

	/**
	 * Builds a {@link BatchContainer}: the required parts are given to {@link BatchContainer#builder},
	 * each optional part has a method of its own.
	 */
	public static final class Builder {

		private final ContainerOptions options;

		private final MessageSource source;

		private final SliceListener listener;

		private final DeadLetterSink deadLetterSink;

		private ContainerObserver observer = ContainerObserver.NONE;

		private WorkerThreads threads = WorkerThreads.PLATFORM;

		private @Nullable MessageFilter filter;

		private @Nullable RetryQueue retryQueue;

		private Clock clock = Clock.systemUTC();

		private Builder(ContainerOptions options, MessageSource source, SliceListener listener,
				DeadLetterSink deadLetterSink) {
			this.options = Objects.requireNonNull(options, "options");
			this.source = Objects.requireNonNull(source, "source");
			this.listener = Objects.requireNonNull(listener, "listener");
			this.deadLetterSink = Objects.requireNonNull(deadLetterSink, "deadLetterSink");
		}

		/**
		 * Sets the observer of processed slices.
		 * @param observer told of every listener call, on worker threads
		 * @return this builder
		 */
		public Builder observer(ContainerObserver observer) {
			this.observer = Objects.requireNonNull(observer, "observer");
			return this;
		}

		/**
		 * Sets what the {@link ContainerOptions#threadSize()} workers run on.
		 * @param threads platform (the default) or virtual threads
		 * @return this builder
		 */
		public Builder workerThreads(WorkerThreads threads) {
			this.threads = Objects.requireNonNull(threads, "threads");
			return this;
		}

		/**
		 * Sets the filter applied after the tag subscription ({@link ContainerOptions#tags()}).
		 * @param filter decides which selected messages reach the listener, {@code null} for all
		 * @return this builder
		 */
		public Builder filter(@Nullable MessageFilter filter) {
			this.filter = filter;
			return this;
		}

		/**
		 * Sets the retry queue: retries with a back-off above {@code retry.blocking-limit} wait there
		 * instead of on their worker (see {@link RetryQueue}).
		 * @param retryQueue the transport's retry queue for this container
		 *        ({@link Transport#retryQueue}), {@code null} for none
		 * @return this builder
		 */
		public Builder retryQueue(@Nullable RetryQueue retryQueue) {
			this.retryQueue = retryQueue;
			return this;
		}

		/**
		 * Sets the clock compared with message timestamps for the {@code delay}, for tests that move
		 * time by hand.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			this.clock = Objects.requireNonNull(clock, "clock");
			return this;
		}

		/**
		 * Builds the container; it starts with {@link BatchContainer#start()}.
		 * @return the container
		 * @throws IllegalStateException for {@link WorkerThreads#VIRTUAL} before Java 21
		 * @throws InvalidOptionException when the retry queue would be used with {@code key} or
		 *         {@code partition} ordering
		 */
		public BatchContainer build() {
			return new BatchContainer(this);
		}

	}

}

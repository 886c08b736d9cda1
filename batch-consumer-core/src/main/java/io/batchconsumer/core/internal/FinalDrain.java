package io.batchconsumer.core.internal;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;

/**
 * The end of some partitions' epochs on a revoke or a stop: no new slices, the slices still waiting
 * in the pool's queue taken back (they are delivered again), wait up to {@code shutdown-timeout} for
 * the slices on a worker, then the final synchronous commit.
 *
 * <p>A partition whose epoch ended while it drained (a seek from the endpoint, which committed its
 * own position) is not committed: the old epoch's watermark would move the position back over the
 * seek. The final commit is confirmed by the source, never assumed from an
 * asynchronous commit still in flight ({@link CommitScheduler#commitFinal}).
 *
 * <p>Threading: owned by the owner thread; it waits through the owner's mailbox, so completions
 * and commands keep being handled during the drain.
 */
final class FinalDrain {

	private static final Logger logger = LoggerFactory.getLogger(FinalDrain.class);

	private final ContainerOptions options;

	private final Partitions partitions;

	private final CommitScheduler commits;

	private final LongConsumer waitForMailbox;

	private final BooleanSupplier aborted;

	private final Ticker ticker;

	/** Takes back the partitions' slices that wait in the pool's queue, not started. */
	private final Consumer<List<PartitionState>> withdrawQueued;

	FinalDrain(ContainerOptions options, Partitions partitions, CommitScheduler commits, LongConsumer waitForMailbox,
			BooleanSupplier aborted, Ticker ticker, Consumer<List<PartitionState>> withdrawQueued) {
		this.ticker = ticker;
		this.withdrawQueued = withdrawQueued;
		this.options = options;
		this.partitions = partitions;
		this.commits = commits;
		this.waitForMailbox = waitForMailbox;
		this.aborted = aborted;
	}

	/**
	 * Drains the partitions and commits what they finished; after an abort (a crash-like stop) it
	 * neither waits nor commits.
	 * @param states the partitions' current states
	 */
	void drainAndCommit(List<PartitionState> states) {
		drain(states);
		commit(states);
	}

	/**
	 * Stops dispatching for the partitions and waits up to {@code shutdown-timeout} for their
	 * slices on a worker; after an abort it does not wait.
	 * @param states the partitions' current states
	 */
	void drain(List<PartitionState> states) {
		begin(states);
		await(states);
	}

	/**
	 * Stops dispatching for the partitions and takes back their slices not started.
	 * @param states the partitions' current states
	 */
	void begin(List<PartitionState> states) {
		this.withdrawQueued.accept(states);
		for (PartitionState state : states) {
			state.startDraining();
		}
	}

	/**
	 * Waits up to {@code shutdown-timeout} for the slices of partitions that {@link #begin began}
	 * draining; after an abort it does not wait.
	 * @param states the partitions' current states
	 */
	void await(List<PartitionState> states) {
		long deadline = this.ticker.nanoTime() + this.options.shutdownTimeout().toNanos();
		while (!this.aborted.getAsBoolean() && states.stream().anyMatch(this::isWaitedFor)) {
			long left = deadline - this.ticker.nanoTime();
			if (left <= 0) {
				logger.warn("Container '{}' stopped waiting for in-flight work of {} after {}; it will be delivered again",
						this.options.id(), states.stream().filter(this::isWaitedFor).map((s) -> s.partition).toList(),
						this.options.shutdownTimeout());
				break;
			}
			this.waitForMailbox.accept(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
		}
	}

	/**
	 * The final, confirmed commit of the partitions whose epoch is still current; none after an
	 * abort.
	 * @param states the partitions' states
	 */
	void commit(List<PartitionState> states) {
		if (!this.aborted.getAsBoolean()) {
			this.commits.commitFinal(states.stream().filter(this.partitions::isCurrent).toList());
		}
	}

	/**
	 * Slices of an epoch that ended during the drain are still waited for (within the timeout): the
	 * partition's next owner should not run a key while an older slice of it still runs here.
	 */
	private boolean isWaitedFor(PartitionState state) {
		return state.running() > 0;
	}

}

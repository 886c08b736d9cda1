package io.batchconsumer.core.internal;

import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

/**
 * What changes the owner's partitions from outside its loop: the source's rebalance callbacks
 * (assigned, revoked, lost) and the operator's commands (pause, resume, seek).
 *
 * <p>Threading: owner thread only. The source calls the rebalance callbacks from inside its poll on
 * the owner thread; commands arrive through the mailbox as {@link Command}s.
 */
final class OwnerCommands implements RebalanceListener {

	private static final Logger logger = LoggerFactory.getLogger(OwnerCommands.class);

	private final ContainerOptions options;

	private final MessageSource source;

	private final PublishedState status;

	private final Partitions partitions;

	private final CommitScheduler commits;

	private final FinalDrain drain;

	/** Takes back the partitions' slices that wait in the pool's queue, not started. */
	private final Consumer<List<PartitionState>> withdrawQueued;

	private boolean paused;

	OwnerCommands(ContainerOptions options, MessageSource source, PublishedState status, Partitions partitions,
			CommitScheduler commits, FinalDrain drain, Consumer<List<PartitionState>> withdrawQueued) {
		this.withdrawQueued = withdrawQueued;
		this.options = options;
		this.source = source;
		this.status = status;
		this.partitions = partitions;
		this.commits = commits;
		this.drain = drain;
	}

	/** Whether the whole container is paused. */
	boolean isPaused() {
		return this.paused;
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

	/**
	 * Pauses or resumes the whole container. A pause takes back the slices not started: no listener
	 * call starts after it (those running finish).
	 * @param pause {@code true} to pause
	 */
	void pauseAll(boolean pause) {
		if (pause) {
			this.withdrawQueued.accept(this.partitions.all());
		}
		this.paused = pause;
		this.status.state(pause ? LifecyclePhase.PAUSED : LifecyclePhase.RUNNING);
	}

	/**
	 * Pauses or resumes one assigned partition.
	 * @param partition the partition
	 * @param pause {@code true} to pause
	 */
	void pausePartition(TopicPartition partition, boolean pause) {
		PartitionState state = assigned(partition);
		state.pauses.pauseByUser(pause);
		if (pause) {
			this.withdrawQueued.accept(List.of(state));
		}
	}

	/**
	 * Moves an assigned partition to an offset and commits it there: a new epoch, so slices of the
	 * old position still running commit nothing when they end.
	 * @param partition the partition
	 * @param offset the next offset to read
	 */
	void seek(TopicPartition partition, long offset) {
		PartitionState old = assigned(partition);
		if (offset < 0) {
			throw new IllegalArgumentException("offset must be zero or more but was " + offset);
		}
		// The source first: when it refuses the offset (RocketMQ's and Kafka's past the end) the
		// partition keeps its epoch and buffer, which the source has already read past.
		this.source.seek(partition, offset);
		PartitionState fresh = this.partitions.assign(partition);
		fresh.pauses.keep(old.pauses);
		this.commits.commitSeek(fresh, offset);
	}

	private PartitionState assigned(TopicPartition partition) {
		PartitionState state = this.partitions.get(partition);
		if (state == null) {
			throw new IllegalArgumentException(partition + " is not assigned to container '" + this.options.id() + "'");
		}
		return state;
	}

}

package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;

/**
 * The assigned partitions of a container, each with the state of its current epoch.
 *
 * <p>The observer hears of every partition that comes (not of a seek, which keeps it) and goes.
 *
 * <p>Threading: owned by the owner thread.
 */
final class Partitions {

	private static final Logger logger = LoggerFactory.getLogger(Partitions.class);

	private final Map<TopicPartition, PartitionState> byPartition = new LinkedHashMap<>();

	private final Ordering ordering;

	private List<PartitionState> list = List.of();

	private final ContainerObserver observer;

	private long lastEpoch;

	/** Told of each new epoch before any slice of it is handed out ({@link SliceListener#epochStarted}). */
	private final ObjLongConsumer<TopicPartition> epochStarted;

	/** Given to every epoch's state: see {@link PartitionState#whenEnding}. */
	private final Runnable ending;

	Partitions(Ordering ordering) {
		this(ordering, ContainerObserver.NONE);
	}

	Partitions(Ordering ordering, ContainerObserver observer) {
		this(ordering, observer, (partition, epoch) -> {
		}, () -> {
		});
	}

	/**
	 * @param epochStarted told of each new epoch before any slice of it is handed out
	 * @param ending told when an epoch ends or starts draining (the workers' back-offs wake up)
	 */
	Partitions(Ordering ordering, ContainerObserver observer, ObjLongConsumer<TopicPartition> epochStarted,
			Runnable ending) {
		this.ordering = ordering;
		this.observer = observer;
		this.epochStarted = epochStarted;
		this.ending = ending;
	}

	/** Told of each new epoch's state before any slice of it is handed out; nothing by default. */
	private Consumer<PartitionState> assigned = (state) -> {
	};

	/** Sets what is told of each new epoch's state before any slice of it is handed out; owner thread. */
	void whenAssigned(Consumer<PartitionState> assigned) {
		this.assigned = assigned;
	}

	/** Starts a new epoch for the partition, replacing (and cancelling) the state of the old one. */
	PartitionState assign(TopicPartition partition) {
		PartitionState state = new PartitionState(partition, ++this.lastEpoch, this.ordering);
		state.whenEnding(this.ending);
		PartitionState old = this.byPartition.put(partition, state);
		if (old != null) {
			end(old);
		}
		this.epochStarted.accept(partition, state.epoch);
		this.assigned.accept(state);
		this.list = List.copyOf(this.byPartition.values());
		if (old == null) {
			tell(partition, true);
		}
		return state;
	}

	/** Ends the partition's epoch and forgets it. */
	PartitionState remove(TopicPartition partition) {
		PartitionState old = this.byPartition.remove(partition);
		if (old != null) {
			end(old);
			this.list = List.copyOf(this.byPartition.values());
			tell(partition, false);
		}
		return old;
	}

	PartitionState get(TopicPartition partition) {
		return this.byPartition.get(partition);
	}

	/** Whether the slice belongs to the current epoch of its partition. */
	boolean isCurrent(Slice slice) {
		return this.byPartition.get(slice.partition.partition) == slice.partition;
	}

	/** Whether the state is its partition's current epoch (not revoked, lost or replaced by a seek). */
	boolean isCurrent(PartitionState state) {
		return this.byPartition.get(state.partition) == state;
	}

	/**
	 * Buffers a poll's messages in their partitions; those of a partition not assigned are dropped.
	 * @param messages the messages
	 */
	void buffer(List<Message<byte[]>> messages) {
		PartitionState partition = null;
		for (Message<byte[]> message : messages) {
			// A poll returns runs of one partition: look the state up once per run, not per message
			// (the lookup was ~7% of the owner thread at 1M records/s).
			if (partition == null || partition.partition.partition() != message.partition()
					|| !partition.partition.topic().equals(message.topic())) {
				partition = this.byPartition.get(message.topicPartition());
			}
			if (partition != null) {
				partition.add(message);
			}
		}
	}

	List<PartitionState> all() {
		return this.list;
	}

	List<PartitionState> of(Collection<TopicPartition> partitions) {
		List<PartitionState> states = new ArrayList<>();
		for (TopicPartition partition : partitions) {
			PartitionState state = this.byPartition.get(partition);
			if (state != null) {
				states.add(state);
			}
		}
		return states;
	}

	/** Observing must not stop the owner thread: a failing observer is logged, never thrown. */
	private void tell(TopicPartition partition, boolean assigned) {
		try {
			if (assigned) {
				this.observer.partitionsAssigned(List.of(partition));
			}
			else {
				this.observer.partitionsRevoked(List.of(partition));
			}
		}
		catch (RuntimeException ex) {
			logger.warn("An observer failed on the {} of {}", assigned ? "assignment" : "revocation", partition, ex);
		}
	}

	private static void end(PartitionState state) {
		state.cancel();
	}

}

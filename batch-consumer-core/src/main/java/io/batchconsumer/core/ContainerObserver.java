package io.batchconsumer.core;

import java.util.Collection;

/**
 * Told of every listener call of a slice (a grown slice of a list listener takes several), for
 * timers such as {@code batch.consumer.slice.duration}, and of the partitions the container takes
 * and gives up, so per-partition meters come and go with the assignment rather than with a timer.
 *
 * <p>Threading: {@link #sliceProcessed} is called on worker threads, concurrently;
 * {@link #partitionsAssigned} and {@link #partitionsRevoked} on the owner thread. Implementations
 * must be thread-safe and fast; an exception they throw is logged and ignored.
 */
@FunctionalInterface
public interface ContainerObserver {

	/** An observer that does nothing. */
	ContainerObserver NONE = (partition, messages, nanos, failed) -> {
	};

	/**
	 * One call of the listener with messages of a slice ended (the slice, or one list of at most
	 * {@code consumer-batch-size} of a longer slice).
	 * @param partition the slice's partition
	 * @param messages how many messages the call held
	 * @param nanos how long the listener took
	 * @param failed how many of them failed
	 */
	void sliceProcessed(TopicPartition partition, int messages, long nanos, int failed);

	/**
	 * The container took these partitions (a new assignment, not a seek). Called on the owner
	 * thread before any of their messages is fetched.
	 * @param partitions the partitions
	 */
	default void partitionsAssigned(Collection<TopicPartition> partitions) {
	}

	/**
	 * The container gave these partitions up: revoked (after their in-flight work drained), lost,
	 * or the container stopped. Called on the owner thread.
	 * @param partitions the partitions
	 */
	default void partitionsRevoked(Collection<TopicPartition> partitions) {
	}

}

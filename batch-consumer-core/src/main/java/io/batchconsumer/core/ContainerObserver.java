package io.batchconsumer.core;

/**
 * Told of every processed slice, for timers such as {@code batch.consumer.slice.duration}.
 *
 * <p>Threading: called on worker threads, concurrently; implementations must be thread-safe and fast.
 */
@FunctionalInterface
public interface ContainerObserver {

	/** An observer that does nothing. */
	ContainerObserver NONE = (partition, messages, nanos, failed) -> {
	};

	/**
	 * One delivery of a slice to the listener ended.
	 * @param partition the slice's partition
	 * @param messages how many messages it held
	 * @param nanos how long the listener took
	 * @param failed how many of them failed
	 */
	void sliceProcessed(TopicPartition partition, int messages, long nanos, int failed);

}

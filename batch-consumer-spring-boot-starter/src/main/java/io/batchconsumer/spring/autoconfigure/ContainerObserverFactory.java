package io.batchconsumer.spring.autoconfigure;

import io.batchconsumer.core.ContainerObserver;

/**
 * Gives each listener container an observer of its processed slices, for timers and tracing.
 * Every bean of this type is asked for every container it creates, in
 * {@link org.springframework.core.Ordered} order; the container tells each observer of every
 * slice. The metrics auto-configuration contributes one that records
 * {@code batch.consumer.slice.duration}.
 */
@FunctionalInterface
public interface ContainerObserverFactory {

	/**
	 * Creates the observer of one listener's container. Called again when a stopped listener is
	 * started with a fresh container.
	 * @param listenerId the listener id
	 * @return the observer, or {@link ContainerObserver#NONE}; it is called on worker threads,
	 *         concurrently, and must be thread-safe and fast
	 */
	ContainerObserver create(String listenerId);

}

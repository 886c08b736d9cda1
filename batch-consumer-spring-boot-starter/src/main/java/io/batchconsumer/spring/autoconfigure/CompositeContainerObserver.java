package io.batchconsumer.spring.autoconfigure;

import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.TopicPartition;

/**
 * Tells several observers of each slice. An observer that throws is logged (once at WARN, then
 * at DEBUG) and never fails the slice: observing must not change what is processed or committed.
 *
 * <p>Threading: called on worker threads concurrently; the observers are fixed at construction
 * and the warning flag is atomic.
 */
final class CompositeContainerObserver implements ContainerObserver {

	private static final Logger logger = LoggerFactory.getLogger(CompositeContainerObserver.class);

	private final String listenerId;

	private final List<ContainerObserver> observers;

	private final AtomicBoolean warned = new AtomicBoolean();

	private CompositeContainerObserver(String listenerId, List<ContainerObserver> observers) {
		this.listenerId = listenerId;
		this.observers = List.copyOf(observers);
	}

	/**
	 * The observer of one container built from every factory.
	 * @param listenerId the listener id
	 * @param factories the factories, in order
	 * @return {@link ContainerObserver#NONE} when no factory gives one, else an observer that tells each
	 */
	static ContainerObserver of(String listenerId, List<ContainerObserverFactory> factories) {
		List<ContainerObserver> observers = factories.stream()
			.map((factory) -> factory.create(listenerId))
			.filter((observer) -> observer != null && observer != ContainerObserver.NONE)
			.toList();
		return observers.isEmpty() ? ContainerObserver.NONE : new CompositeContainerObserver(listenerId, observers);
	}

	@Override
	public void sliceProcessed(TopicPartition partition, int messages, long nanos, int failed) {
		tellEach((observer) -> observer.sliceProcessed(partition, messages, nanos, failed));
	}

	@Override
	public void partitionsAssigned(Collection<TopicPartition> partitions) {
		tellEach((observer) -> observer.partitionsAssigned(partitions));
	}

	@Override
	public void partitionsRevoked(Collection<TopicPartition> partitions) {
		tellEach((observer) -> observer.partitionsRevoked(partitions));
	}

	private void tellEach(Consumer<ContainerObserver> call) {
		for (ContainerObserver observer : this.observers) {
			try {
				call.accept(observer);
			}
			catch (RuntimeException ex) {
				if (this.warned.compareAndSet(false, true)) {
					logger.warn("An observer of listener '{}' failed; further failures are logged at DEBUG", this.listenerId,
							ex);
				}
				else {
					logger.debug("An observer of listener '{}' failed", this.listenerId, ex);
				}
			}
		}
	}

}

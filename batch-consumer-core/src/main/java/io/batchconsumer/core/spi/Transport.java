package io.batchconsumer.core.spi;

import org.jspecify.annotations.Nullable;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.options.OptionDescriptor;

/**
 * A message store: makes the sources, dead-letter sinks and producer of one kind of store
 * (JDBC tables, Kafka).
 */
public interface Transport {

	/**
	 * A new source for one container.
	 * @param options the container's options (topics, group, mode, pull batch size)
	 * @return the source, used by that container's owner thread only
	 */
	MessageSource createSource(ContainerOptions options);

	/**
	 * The dead-letter sink for one container.
	 * @param options the container's options
	 * @return the sink, thread-safe
	 */
	DeadLetterSink deadLetterSink(ContainerOptions options);

	/**
	 * The retry queue of one container, for retries that do not hold a thread.
	 * @param options the container's options
	 * @return the queue, or {@code null} when this store has none (retries then wait on their worker)
	 */
	default @Nullable RetryQueue retryQueue(ContainerOptions options) {
		return null;
	}

	/**
	 * The producer of this store.
	 * @return the producer, thread-safe
	 */
	BatchProducer producer();

	/**
	 * A builder of a container's options with every default, this store's own included (Kafka:
	 * {@code pull-batch-size} 2000 and {@code flow-control.pull-threshold-for-queue} 4000; the
	 * generic ones otherwise): start here rather than at {@link ContainerOptions#builder} so a
	 * container of this store takes the store's defaults. The starter applies every value this
	 * builder holds otherwise than {@link OptionDescriptor#defaultValue()} where no property,
	 * annotation or customizer sets it.
	 * @param id the container id
	 * @return the builder
	 */
	default ContainerOptions.Builder optionsBuilder(String id) {
		return ContainerOptions.builder(id);
	}

	/**
	 * Reads and replays the dead letters this store keeps.
	 * @return the dead letters of this store
	 * @throws UnsupportedOperationException when this store cannot read its dead letters back
	 */
	default DeadLetters storedDeadLetters() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot read its dead letters back");
	}

}

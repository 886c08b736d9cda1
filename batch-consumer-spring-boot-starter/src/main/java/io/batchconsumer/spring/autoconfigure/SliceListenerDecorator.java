package io.batchconsumer.spring.autoconfigure;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.SliceListener;

/**
 * Wraps the listener of each container, for cross-cutting concerns such as an observation per
 * slice delivery. Every bean of this type is applied, in {@link org.springframework.core.Ordered}
 * order (the first is the outermost), to every container created.
 */
@FunctionalInterface
public interface SliceListenerDecorator {

	/**
	 * Wraps one container's listener.
	 * @param options the container's options
	 * @param listener the listener (possibly wrapped already)
	 * @return the wrapped listener, or {@code listener} itself; it runs on worker threads
	 *         concurrently and must give back what the listener gave
	 */
	SliceListener decorate(ContainerOptions options, SliceListener listener);

}

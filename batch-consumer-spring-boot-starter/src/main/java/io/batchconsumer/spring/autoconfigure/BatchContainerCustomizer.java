package io.batchconsumer.spring.autoconfigure;

import io.batchconsumer.core.ContainerOptions;

/**
 * Customizes the options of listener containers after the properties and the annotation were
 * applied. Beans of this type are applied in {@link org.springframework.core.Ordered} order.
 */
@FunctionalInterface
public interface BatchContainerCustomizer {

	/**
	 * Customizes the options of one listener's container.
	 * @param listenerId the listener id
	 * @param options the options so far, to change in place
	 */
	void customize(String listenerId, ContainerOptions.Builder options);

}

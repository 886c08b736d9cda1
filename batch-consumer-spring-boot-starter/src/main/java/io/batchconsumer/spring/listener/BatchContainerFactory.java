package io.batchconsumer.spring.listener;

import io.batchconsumer.core.BatchContainer;

/**
 * Creates the container of an endpoint. The auto-configuration supplies one that resolves the
 * endpoint against the {@code batch-consumer.*} properties and the configured transport.
 */
public interface BatchContainerFactory {

	/**
	 * Creates a container, not started.
	 * @param endpoint the endpoint
	 * @return the container
	 * @throws IllegalStateException naming the property or attribute when the configuration is invalid
	 */
	BatchContainer createContainer(BatchListenerEndpoint endpoint);

	/**
	 * Whether the endpoint's container starts with the application.
	 * @param endpoint the endpoint
	 * @return {@code true} to start it on refresh
	 */
	boolean isAutoStartup(BatchListenerEndpoint endpoint);

}

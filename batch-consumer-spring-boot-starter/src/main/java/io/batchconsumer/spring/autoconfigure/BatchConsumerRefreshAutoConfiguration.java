package io.batchconsumer.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Runtime tuning on a Spring Cloud refresh: when spring-cloud-context is on the class path, an
 * {@code EnvironmentChangeEvent} (published by {@code ContextRefresher.refresh()}, the
 * {@code refresh} endpoint, Spring Cloud Bus or the writable {@code env} endpoint) whose keys
 * include {@code batch-consumer.*} tuning keys tunes the running containers ({@link RefreshTuning}).
 */
@AutoConfiguration(after = BatchConsumerAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
@ConditionalOnBean({ BatchListenerContainerRegistry.class, EffectiveOptions.class, Transport.class })
public final class BatchConsumerRefreshAutoConfiguration {

	/**
	 * Tunes the running containers when a refresh changes their tuning keys.
	 * @param environment the refreshed environment
	 * @param registry the containers
	 * @param effectiveOptions where the new values and their properties are shown
	 * @param transport gives its own defaults (Kafka: the pull size and the count threshold)
	 * @param resourceLoader gives the class loader whose metadata declares the names
	 * @return the listener
	 */
	@Bean
	@ConditionalOnMissingBean
	RefreshTuning batchConsumerRefreshTuning(Environment environment, BatchListenerContainerRegistry registry,
			EffectiveOptions effectiveOptions, Transport transport, ResourceLoader resourceLoader) {
		return new RefreshTuning(environment, registry, effectiveOptions, transport, resourceLoader.getClassLoader());
	}

}

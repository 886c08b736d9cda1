package io.batchconsumer.spring.autoconfigure.health;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.autoconfigure.BatchConsumerProperties;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Auto-configuration of the {@code batchConsumer} health component, when Spring Boot's health
 * support ({@code spring-boot-health}) is on the class path. {@code
 * management.health.batch-consumer.enabled=false} turns it off; a bean named
 * {@code batchConsumerHealthIndicator} replaces it.
 */
@AutoConfiguration(after = BatchConsumerAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnProperty(prefix = "batch-consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(BatchListenerContainerRegistry.class)
@ConditionalOnEnabledHealthIndicator("batch-consumer")
public final class BatchConsumerHealthAutoConfiguration {

	/**
	 * The {@code batchConsumer} health component.
	 * @param containers the listener containers
	 * @param properties for {@code batch-consumer.health.stall-timeout}
	 * @return the health indicator
	 */
	@Bean
	@ConditionalOnMissingBean(name = "batchConsumerHealthIndicator")
	BatchConsumerHealthIndicator batchConsumerHealthIndicator(BatchListenerContainerRegistry containers,
			BatchConsumerProperties properties) {
		return new BatchConsumerHealthIndicator(containers, properties.getHealth().getStallTimeout());
	}

}

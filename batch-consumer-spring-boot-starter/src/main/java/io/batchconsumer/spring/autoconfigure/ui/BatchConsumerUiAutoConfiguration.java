package io.batchconsumer.spring.autoconfigure.ui;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import io.batchconsumer.spring.autoconfigure.endpoint.BatchConsumerEndpoint;
import io.batchconsumer.spring.autoconfigure.endpoint.BatchConsumerEndpointAutoConfiguration;

/**
 * Auto-configuration of the ledger page ({@link BatchConsumerUiEndpoint}): off unless
 * {@code batch-consumer.ui.enabled=true}, and only beside the {@code batchconsumer} endpoint it
 * reads, when Actuator web endpoints are on the class path and the page's endpoint is exposed.
 */
@AutoConfiguration(after = BatchConsumerEndpointAutoConfiguration.class)
@ConditionalOnClass({ WebEndpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnProperty(prefix = "batch-consumer.ui", name = "enabled", havingValue = "true")
@ConditionalOnBean(BatchConsumerEndpoint.class)
@EnableConfigurationProperties(UiProperties.class)
public final class BatchConsumerUiAutoConfiguration {

	/**
	 * The ledger page.
	 * @return the endpoint that serves it
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	BatchConsumerUiEndpoint batchConsumerUiEndpoint() {
		return new BatchConsumerUiEndpoint();
	}

}

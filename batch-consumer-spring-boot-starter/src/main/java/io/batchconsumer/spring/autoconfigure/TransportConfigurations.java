package io.batchconsumer.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.Transport;

/**
 * The {@link Transport} selected by {@code batch-consumer.transport}, unless the application
 * defines one. Imported in this order, so that {@link Missing} only applies when no transport
 * was configured.
 */
final class TransportConfigurations {

	private TransportConfigurations() {
	}

	/**
	 * The JDBC transport on the application's {@code DataSource}.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Jdbc {

	}

	/**
	 * No transport could be configured: fails start-up with what to do. This is also the hook of
	 * {@code batch-consumer.transport=kafka} until a Kafka transport exists: the application must
	 * define the {@link Transport} bean.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Missing {

		@Bean
		@ConditionalOnMissingBean
		Transport batchConsumerMissingTransport(BatchConsumerProperties properties) {
			String transport = PropertiesValidation.normalize(properties.getTransport());
			if ("kafka".equals(transport)) {
				throw new IllegalStateException("No Transport bean for batch-consumer.transport=kafka: the Kafka "
						+ "transport is not available yet; define a io.batchconsumer.core.Transport bean");
			}
			throw new IllegalStateException("No Transport bean for batch-consumer.transport=" + transport
					+ ": the JDBC transport needs a single DataSource bean; add spring-boot-starter-jdbc and a "
					+ "driver (H2 for the embedded default), or define a io.batchconsumer.core.Transport bean");
		}

	}

}

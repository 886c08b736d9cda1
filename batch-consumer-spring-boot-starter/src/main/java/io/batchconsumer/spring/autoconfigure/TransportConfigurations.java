package io.batchconsumer.spring.autoconfigure;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.Transport;
import io.batchconsumer.core.jdbc.JdbcSettings;
import io.batchconsumer.core.jdbc.JdbcTransport;
import io.batchconsumer.core.jdbc.SchemaInitialization;
import io.batchconsumer.spring.listener.PayloadConverter;

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
	@ConditionalOnProperty(prefix = "batch-consumer", name = "transport", havingValue = "jdbc", matchIfMissing = true)
	@ConditionalOnClass(DataSource.class)
	@ConditionalOnSingleCandidate(DataSource.class)
	static class Jdbc {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean(Transport.class)
		JdbcTransport batchConsumerJdbcTransport(BatchConsumerProperties properties, DataSource dataSource,
				PayloadConverter converter) {
			BatchConsumerProperties.Jdbc jdbc = properties.getJdbc();
			String instanceId = (jdbc.getInstanceId() != null) ? jdbc.getInstanceId()
					: JdbcSettings.defaults().instanceId();
			return new JdbcTransport(dataSource, jdbcSettings(jdbc, instanceId), converter::write);
		}

	}

	/**
	 * Maps the {@code batch-consumer.jdbc.*} properties to the transport's settings.
	 * @param jdbc the properties
	 * @param instanceId the instance id to use when none is configured
	 * @return the settings
	 * @throws IllegalArgumentException naming the full property of a bad value
	 */
	static JdbcSettings jdbcSettings(BatchConsumerProperties.Jdbc jdbc, String instanceId) {
		try {
			return new JdbcSettings(jdbc.getTablePrefix(), jdbc.getQueuesPerTopic(), jdbc.getLeaseDuration(),
					jdbc.getRetention(), SchemaInitialization.parse(String.valueOf(jdbc.getInitializeSchema())),
					(jdbc.getInstanceId() != null) ? jdbc.getInstanceId() : instanceId);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("batch-consumer." + ex.getMessage());
		}
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

package io.batchconsumer.spring.autoconfigure;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.rocketmq.RocketMqSettings;
import io.batchconsumer.rocketmq.RocketMqTransport;
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
	@ConditionalOnTransport("jdbc")
	@ConditionalOnClass(DataSource.class)
	@ConditionalOnSingleCandidate(DataSource.class)
	static class Jdbc {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean(Transport.class)
		JdbcTransport batchConsumerJdbcTransport(BatchConsumerProperties properties, DataSource dataSource,
				PayloadConverter converter, Environment environment) {
			warnIfH2ClosesBeforeTheDrain(environment.getProperty("spring.datasource.url"));
			JdbcTransportProperties jdbc = properties.getJdbc();
			String instanceId = (properties.getInstanceId() != null) ? properties.getInstanceId()
					: JdbcSettings.defaultInstanceId(environment.getProperty("spring.application.name"));
			DataSource target = withoutTransactionAwareProxy(dataSource);
			JdbcTransport transport = new JdbcTransport(target, jdbcSettings(jdbc, instanceId), converter::write);
			transport.joinCallerTransactions(new SpringCallerTransactions(target));
			return transport;
		}

		/**
		 * The transport runs transactions of its own, and a {@link TransactionAwareDataSourceProxy}
		 * would hand it the connection of the caller's transaction instead; Spring's transaction
		 * managers bind the proxy's target, so that is also where a caller's transaction is found.
		 */
		private static DataSource withoutTransactionAwareProxy(DataSource dataSource) {
			return (dataSource instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null)
					? proxy.getTargetDataSource() : dataSource;
		}

	}

	/**
	 * By default H2 closes a file database in a JVM shutdown hook of its own, which runs while the
	 * containers still drain: their final commits fail and their work is delivered again. Only the
	 * URL can turn it off, and H2 does not report it back, so the configured URL is checked.
	 * @param url {@code spring.datasource.url}, may be {@code null}
	 */
	static void warnIfH2ClosesBeforeTheDrain(String url) {
		if (url != null && url.startsWith("jdbc:h2:file:")
				&& !url.toUpperCase(Locale.ROOT).contains("DB_CLOSE_ON_EXIT=FALSE")) {
			LoggerFactory.getLogger(TransportConfigurations.class)
				.warn("spring.datasource.url {} lets H2 close the database while listeners still drain on shutdown "
						+ "(their final commits fail and their work is delivered again); add ;DB_CLOSE_ON_EXIT=FALSE",
						url);
		}
	}

	/**
	 * Maps the {@code batch-consumer.jdbc.*} properties to the transport's settings.
	 * @param jdbc the properties
	 * @param instanceId the instance id to use when none is configured
	 * @return the settings
	 * @throws IllegalArgumentException naming the full property of a bad value
	 */
	static JdbcSettings jdbcSettings(JdbcTransportProperties jdbc, String instanceId) {
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
	 * The Kafka transport, configured from Spring Boot's {@code spring.kafka.*} (bootstrap servers,
	 * security, SSL, {@code properties}, and the consumer and producer sections), so Kafka users
	 * configure nothing twice. The engine sets what it owns (manual commits, group, assignor,
	 * {@code max.poll.records} = pull batch size).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnTransport("kafka")
	@ConditionalOnClass(name = { "io.batchconsumer.kafka.KafkaTransport", "org.apache.kafka.clients.consumer.KafkaConsumer",
			"org.springframework.boot.kafka.autoconfigure.KafkaProperties" })
	@EnableConfigurationProperties(KafkaTransportProperties.class)
	static class Kafka {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean(Transport.class)
		KafkaTransport batchConsumerKafkaTransport(BatchConsumerProperties properties,
				ObjectProvider<KafkaProperties> kafkaProperties, Environment environment, PayloadConverter converter,
				KafkaTransportProperties kafkaTransport) {
			KafkaProperties kafka = kafkaProperties
				.getIfAvailable(() -> Binder.get(environment).bindOrCreate("spring.kafka", KafkaProperties.class));
			Map<String, Object> consumer = new HashMap<>(kafka.buildConsumerProperties());
			Map<String, Object> producer = new HashMap<>(kafka.buildProducerProperties());
			if (properties.getInstanceId() != null) {
				consumer.put(KafkaTransport.INSTANCE_ID, properties.getInstanceId());
			}
			producer.put(KafkaTransport.SEND_TIMEOUT, kafkaTransport.getSendTimeout());
			String groupProtocol = kafkaTransport.groupProtocolOrNull();
			if (groupProtocol != null) {
				consumer.put("group.protocol", groupProtocol);
			}
			return new KafkaTransport(consumer, producer, converter::write)
				.shareGroups((id) -> Boolean
					.parseBoolean(environment.getProperty(ListenerPrefix.of(id) + KafkaTransportProperties.SHARE_GROUP)))
				.shareAutoOffsetReset((id) -> KafkaTransportProperties.shareAutoOffsetReset(environment, id));
		}

	}

	/**
	 * The RocketMQ transport, configured from {@code batch-consumer.rocketmq.*} ({@link RocketMqProperties})
	 * with rocketmq-spring's {@code rocketmq.name-server} as the fallback; each listener's subscription
	 * expression is {@code batch-consumer.listeners.<id>.rocketmq.selector}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnTransport("rocketmq")
	@ConditionalOnClass(name = { "io.batchconsumer.rocketmq.RocketMqTransport",
			"org.apache.rocketmq.client.consumer.DefaultLitePullConsumer" })
	@EnableConfigurationProperties(RocketMqProperties.class)
	static class RocketMq {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean(Transport.class)
		RocketMqTransport batchConsumerRocketMqTransport(BatchConsumerProperties properties,
				RocketMqProperties rocketMq, Environment environment, PayloadConverter converter) {
			return new RocketMqTransport(rocketMqSettings(properties, rocketMq, environment), converter::write);
		}

	}

	/**
	 * Maps the properties to the RocketMQ transport's settings.
	 * @param properties the batch-consumer properties (instance id)
	 * @param rocketMq the {@code batch-consumer.rocketmq.*} properties
	 * @param environment for the rocketmq-spring fallbacks and the per-listener selectors
	 * @return the settings
	 * @throws IllegalStateException when no name server is configured
	 */
	static RocketMqSettings rocketMqSettings(BatchConsumerProperties properties, RocketMqProperties rocketMq,
			Environment environment) {
		String nameServer = firstOf(rocketMq.getNameServer(), environment.getProperty("rocketmq.name-server"));
		if (nameServer == null) {
			throw new IllegalStateException("batch-consumer.transport=rocketmq needs batch-consumer.rocketmq.name-server "
					+ "(or rocketmq.name-server), e.g. 127.0.0.1:9876");
		}
		String instanceId = firstOf(rocketMq.getInstanceId(), properties.getInstanceId());
		try {
			return new RocketMqSettings(nameServer,
					firstOf(rocketMq.getAccessKey(), environment.getProperty("rocketmq.producer.access-key")),
					firstOf(rocketMq.getSecretKey(), environment.getProperty("rocketmq.producer.secret-key")),
					rocketMq.getNamespace(), instanceId,
					(id) -> environment.getProperty(ListenerPrefix.of(id) + "rocketmq.selector"),
					rocketMq.getSendTimeout());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("batch-consumer." + ex.getMessage());
		}
	}

	private static String firstOf(String value, String fallback) {
		if (value != null && !value.isBlank()) {
			return value.trim();
		}
		return (fallback != null && !fallback.isBlank()) ? fallback.trim() : null;
	}

	/**
	 * No transport could be configured: fails start-up with what to do. For
	 * {@code batch-consumer.transport=kafka} that means the Kafka module or Boot's Kafka
	 * auto-configuration is missing, for {@code rocketmq} the RocketMQ module; for {@code jdbc}, a
	 * single {@link javax.sql.DataSource}. A user {@link Transport} bean always wins.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Missing {

		@Bean
		@ConditionalOnMissingBean
		Transport batchConsumerMissingTransport(BatchConsumerProperties properties) {
			String transport = PropertiesValidation.normalize(properties.getTransport());
			if ("rocketmq".equals(transport)) {
				throw new IllegalStateException("No Transport bean for batch-consumer.transport=rocketmq: add "
						+ "io.batchconsumer:batch-consumer-rocketmq to the application (it brings rocketmq-client), "
						+ "or define a io.batchconsumer.core.spi.Transport bean");
			}
			if ("kafka".equals(transport)) {
				throw new IllegalStateException("No Transport bean for batch-consumer.transport=kafka: add "
						+ "io.batchconsumer:batch-consumer-kafka and org.springframework.boot:spring-boot-starter-kafka "
						+ "to the application (the module brings kafka-clients, the starter the spring.kafka.* "
						+ "configuration), or define a io.batchconsumer.core.spi.Transport bean");
			}
			throw new IllegalStateException("No Transport bean for batch-consumer.transport=" + transport
					+ ": the JDBC transport needs a single DataSource bean; add spring-boot-starter-jdbc and a "
					+ "driver (H2 for the embedded default), or define a io.batchconsumer.core.spi.Transport bean");
		}

	}

}

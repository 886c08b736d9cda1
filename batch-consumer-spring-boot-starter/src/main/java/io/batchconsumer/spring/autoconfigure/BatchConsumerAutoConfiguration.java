package io.batchconsumer.spring.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.function.SingletonSupplier;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.annotation.BatchListenerAnnotationBeanPostProcessor;
import io.batchconsumer.spring.listener.BatchContainerFactory;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.listener.PayloadConverter;

/**
 * Auto-configuration of batch-consumer: {@code @BatchListener} processing, the container
 * registry, the transport chosen by {@code batch-consumer.transport} and the
 * {@link BatchProducer}. Every bean backs off when the application defines its own; a
 * {@link Transport} bean of the application replaces the configured transport.
 * {@code batch-consumer.enabled=false} turns all of it off.
 *
 * <p>Shutdown order: the registry holds the container factory, which holds the transport, which
 * holds the {@code DataSource}; so the registry stops its containers (drain, final commit) in
 * its lifecycle phase and, at the latest, is destroyed before the transport and the
 * {@code DataSource} close.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
		"org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration" })
@Conditional(OnBatchConsumerEnabledCondition.class)
@EnableConfigurationProperties(BatchConsumerProperties.class)
@Import({ PayloadConverterConfigurations.Json.class, PayloadConverterConfigurations.Raw.class,
		TransportConfigurations.Jdbc.class, TransportConfigurations.Kafka.class, TransportConfigurations.RocketMq.class,
		TransportConfigurations.Missing.class })
public final class BatchConsumerAutoConfiguration {

	/**
	 * Checks each {@code batch-consumer.*} value as it binds, so that a bad one is reported by
	 * Spring Boot's failure analysis with its property, origin and reason.
	 * @return the bind handler advisor
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ConfigurationPropertiesBindHandlerAdvisor batchConsumerPropertyValueChecks() {
		return new PropertyValueChecks();
	}

	/**
	 * Gives a HikariCP pool on a SQLite file the connection settings the JDBC transport needs.
	 * @return the post-processor
	 */
	@Bean
	@ConditionalOnClass(name = "com.zaxxer.hikari.HikariDataSource")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static SqliteDataSourceSettings batchConsumerSqliteDataSourceSettings() {
		return new SqliteDataSourceSettings();
	}

	/**
	 * Finds {@code @BatchListener} methods.
	 * @return the post-processor
	 */
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static BatchListenerAnnotationBeanPostProcessor batchListenerAnnotationBeanPostProcessor() {
		return new BatchListenerAnnotationBeanPostProcessor();
	}

	/**
	 * Creates listener containers from the properties, the customizers and the transport.
	 * @param properties the properties
	 * @param environment for {@code spring.application.name}, the default group, and
	 *        {@code spring.threads.virtual.enabled}
	 * @param customizers the customizers, in order
	 * @param observerFactories give each container its observers, in order
	 * @param decorators wrap each container's listener, in order
	 * @param transport the transport
	 * @param converter the payload converter
	 * @param effectiveOptions where the factory records each listener's effective options
	 * @param filters the {@link MessageFilter} beans; each applies to the listeners it names
	 * @param beanFactory where exactly-once processing finds the DataSource and transaction manager
	 * @return the factory
	 */
	@Bean
	@ConditionalOnMissingBean
	BatchContainerFactory batchContainerFactory(BatchConsumerProperties properties, Environment environment,
			ObjectProvider<BatchContainerCustomizer> customizers, ObjectProvider<ContainerObserverFactory> observerFactories,
			ObjectProvider<SliceListenerDecorator> decorators, Transport transport, PayloadConverter converter,
			EffectiveOptions effectiveOptions, ObjectProvider<MessageFilter> filters, ListableBeanFactory beanFactory) {
		ListenerOptionsResolver resolver = new ListenerOptionsResolver(properties,
				environment.getProperty("spring.application.name"), new PropertyOrigins(environment));
		return new ConfiguredBatchContainerFactory(resolver, customizers.orderedStream().toList(),
				observerFactories.orderedStream().toList(), decorators.orderedStream().toList(),
				WorkerThreadsResolver.resolve(properties, environment, Runtime.version().feature()), transport, converter,
				effectiveOptions, filters.orderedStream().toList(),
				SingletonSupplier.<Object>of(() -> new ExactlyOnceSupport(beanFactory, properties)));
	}

	/**
	 * The effective options of every listener, with where each value came from.
	 * @return the holder, filled as containers are created
	 */
	@Bean
	@ConditionalOnMissingBean
	EffectiveOptions batchConsumerEffectiveOptions() {
		return new EffectiveOptions();
	}

	/**
	 * Holds and runs the listener containers.
	 * @param containerFactory creates the containers
	 * @return the registry
	 */
	@Bean
	@ConditionalOnMissingBean
	BatchListenerContainerRegistry batchListenerContainerRegistry(BatchContainerFactory containerFactory) {
		return new BatchListenerContainerRegistry(containerFactory);
	}

	/**
	 * Fails start-up, before any container starts, for a {@code batch-consumer.*} name that no
	 * configuration metadata declares and for a listener override that matches no listener.
	 * @param environment the environment whose names are checked
	 * @param registry knows the listener ids; looked up when the check runs, not injected, so the
	 *        lifecycle processor does not start the registry (and its containers) before the check
	 * @param resourceLoader gives the class loader whose metadata declares the names
	 * @return the check
	 */
	@Bean
	UnknownPropertyCheck batchConsumerUnknownPropertyCheck(Environment environment,
			ObjectProvider<BatchListenerContainerRegistry> registry, ResourceLoader resourceLoader) {
		return new UnknownPropertyCheck(environment, registry, resourceLoader.getClassLoader());
	}

	/**
	 * The producer of the configured transport.
	 * @param transport the transport
	 * @return the producer
	 */
	@Bean
	@ConditionalOnMissingBean
	BatchProducer batchProducer(Transport transport) {
		return transport.producer();
	}

}

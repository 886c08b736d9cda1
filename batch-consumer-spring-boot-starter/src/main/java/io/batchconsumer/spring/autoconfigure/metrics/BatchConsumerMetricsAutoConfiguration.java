package io.batchconsumer.spring.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.autoconfigure.BatchConsumerProperties;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Auto-configuration of the {@code batch.consumer.*} meters: when Micrometer is on the class path
 * and the application has a {@link MeterRegistry} (Spring Boot's metrics auto-configuration makes
 * one), every listener gets its gauges and counters, and its container records
 * {@code batch.consumer.slice.duration}. {@code batch-consumer.metrics.per-partition=false} keeps only
 * per-listener sums.
 */
@AutoConfiguration(after = BatchConsumerAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnProperty(prefix = "batch-consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean({ MeterRegistry.class, BatchListenerContainerRegistry.class })
public final class BatchConsumerMetricsAutoConfiguration {

	/**
	 * Binds the gauges and counters of every listener when its container is created and keeps the
	 * per-partition ones in step with the assignment events; the registry is looked up lazily, as it
	 * creates its containers with this bean's observers.
	 * @param meterRegistry where the meters go
	 * @param containers the listener containers
	 * @param properties for {@code batch-consumer.metrics.*}
	 * @return the meters
	 */
	@Bean
	@ConditionalOnMissingBean
	BatchConsumerMeters batchConsumerMeters(MeterRegistry meterRegistry,
			ObjectProvider<BatchListenerContainerRegistry> containers, BatchConsumerProperties properties) {
		return new BatchConsumerMeters(meterRegistry, containers::getObject, properties.getMetrics().isPerPartition(),
				properties.getMetrics().getRefreshInterval());
	}

	/**
	 * Gives every listener container the observer that records {@code batch.consumer.slice.duration}.
	 * @param meterRegistry where the timers go
	 * @param properties for {@code batch-consumer.metrics.per-partition}
	 * @return the observer factory
	 */
	@Bean
	@ConditionalOnMissingBean
	SliceTimers batchConsumerSliceTimers(MeterRegistry meterRegistry, BatchConsumerProperties properties) {
		return new SliceTimers(meterRegistry, properties.getMetrics().isPerPartition());
	}

	/**
	 * The {@code batch.consumer.share.*} meters of listeners on a Kafka share group, with the Kafka transport.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.batchconsumer.kafka.KafkaTransport")
	@ConditionalOnBean(type = "io.batchconsumer.kafka.KafkaTransport")
	static class ShareGroups {

		/**
		 * Binds the share-group meters of each share-group listener when its container is created.
		 * @param meterRegistry where the meters go
		 * @param transport the Kafka transport
		 * @return the observer factory that binds them
		 */
		@Bean
		@ConditionalOnMissingBean
		ShareGroupMeters batchConsumerShareGroupMeters(MeterRegistry meterRegistry,
				io.batchconsumer.kafka.KafkaTransport transport) {
			return new ShareGroupMeters(meterRegistry, transport);
		}

	}

}

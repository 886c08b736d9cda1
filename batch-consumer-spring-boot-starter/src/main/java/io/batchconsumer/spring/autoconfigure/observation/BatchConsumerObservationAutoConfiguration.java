package io.batchconsumer.spring.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.autoconfigure.SliceListenerDecorator;

/**
 * Auto-configuration of the {@code batch.consumer.slice} observation: when the application has an
 * {@link ObservationRegistry} and {@code batch-consumer.observation.enabled} is not {@code false},
 * every slice delivery (list listeners) or message call (single-message listeners) is observed.
 * With Micrometer Tracing (a {@link Tracer} and a {@link Propagator}), the {@link BatchProducer}
 * also writes the trace context into message headers, and the span of one message is a child of
 * its producer's span while the span of a slice of several links to every producer's span.
 */
@AutoConfiguration(after = BatchConsumerAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnProperty(prefix = "batch-consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean({ ObservationRegistry.class, Transport.class })
@EnableConfigurationProperties(BatchConsumerObservationProperties.class)
public final class BatchConsumerObservationAutoConfiguration {

	/**
	 * Observes every slice delivery of a list listener and every message's call of a
	 * single-message listener.
	 * @param registry the observation registry
	 * @param convention a convention of the application's, or none for the default
	 * @param transport for {@code messaging.system}
	 * @return the decorator of every listener
	 */
	@Bean
	@ConditionalOnProperty(prefix = "batch-consumer.observation", name = "enabled", havingValue = "true",
			matchIfMissing = true)
	SliceListenerDecorator batchConsumerSliceObservation(ObservationRegistry registry,
			ObjectProvider<SliceObservationConvention> convention, Transport transport) {
		String system = systemOf(transport);
		return new SliceObservations(system, registry, convention.getIfAvailable());
	}

	static String systemOf(Transport transport) {
		String name = transport.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
		return name.endsWith("transport") && name.length() > "transport".length()
				? name.substring(0, name.length() - "transport".length()) : name;
	}

	/** The tracing side, when Micrometer Tracing is on the class path. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Tracer.class, Propagator.class })
	@ConditionalOnProperty(prefix = "batch-consumer.observation", name = "enabled", havingValue = "true",
			matchIfMissing = true)
	static class Tracing {

		/**
		 * The span of a slice: child of one message's producer span, or linked to every message's.
		 * @param tracer the tracer
		 * @param propagator the propagator
		 * @return the handler
		 */
		@Bean
		@Order(SliceTracingObservationHandler.ORDER)
		@ConditionalOnBean({ Tracer.class, Propagator.class })
		@ConditionalOnMissingBean
		SliceTracingObservationHandler batchConsumerSliceTracingObservationHandler(Tracer tracer,
				Propagator propagator) {
			return new SliceTracingObservationHandler(tracer, propagator);
		}

		/**
		 * Wraps the {@link BatchProducer} so it writes the trace context into message headers.
		 * @param tracer the tracer, looked up when first used
		 * @param propagator the propagator, looked up when first used
		 * @return the post-processor
		 */
		@Bean
		static BeanPostProcessor batchConsumerTracingProducerPostProcessor(ObjectProvider<Tracer> tracer,
				ObjectProvider<Propagator> propagator) {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
					if (bean instanceof BatchProducer producer && !(bean instanceof TracingBatchProducer)) {
						return new TracingBatchProducer(producer, tracer, propagator);
					}
					return bean;
				}

			};
		}

	}

}

package io.batchconsumer.spring.autoconfigure.endpoint;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerExceptionResolver;

import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.autoconfigure.EffectiveOptions;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Auto-configuration of the {@code batchconsumer} Actuator endpoint, when Actuator is on the class
 * path and the endpoint is available (exposed, and its access not {@code none}). Its default access
 * is read-only; {@code management.endpoint.batchconsumer.access=unrestricted} allows pause, resume
 * and seek. Beside it, the {@code deadletters} endpoint (read-only by default too; replay with
 * {@code management.endpoint.deadletters.access=unrestricted}).
 */
@AutoConfiguration(after = BatchConsumerAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnProperty(prefix = "batch-consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(BatchListenerContainerRegistry.class)
public final class BatchConsumerEndpointAutoConfiguration {

	/**
	 * The {@code batchconsumer} endpoint.
	 * @param containers the listener containers
	 * @param effectiveOptions the listeners' effective options, when the starter created the containers
	 * @return the endpoint
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	BatchConsumerEndpoint batchConsumerEndpoint(BatchListenerContainerRegistry containers,
			ObjectProvider<EffectiveOptions> effectiveOptions) {
		return new BatchConsumerEndpoint(containers, effectiveOptions.getIfAvailable(EffectiveOptions::new));
	}

	/**
	 * The {@code deadletters} endpoint: list and show each listener's dead letters; replay them
	 * when its access is {@code unrestricted}.
	 * @param containers the listener containers
	 * @param transport the store of the dead letters
	 * @return the endpoint
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	@ConditionalOnBean(Transport.class)
	DeadLettersEndpoint deadLettersEndpoint(BatchListenerContainerRegistry containers, Transport transport) {
		return new DeadLettersEndpoint(containers, transport);
	}

	/**
	 * Rejects a {@code deadletters} call whose arguments the endpoint does not take, or that lacks
	 * or misspells one, with a reason that says what is expected.
	 * @return the advisor
	 */
	@Bean
	@ConditionalOnAvailableEndpoint(DeadLettersEndpoint.class)
	static OperationInvokerAdvisor batchConsumerDeadLettersArguments() {
		return new DeadLettersArguments();
	}

	/**
	 * Over Spring MVC, the {@code deadletters} endpoint's bad requests as RFC 9457 problem details.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(HandlerExceptionResolver.class)
	@ConditionalOnAvailableEndpoint(DeadLettersEndpoint.class)
	static class DeadLettersProblemConfiguration {

		@Bean
		DeadLettersProblems batchConsumerDeadLettersProblems(ObjectProvider<PathMappedEndpoints> endpoints) {
			return new DeadLettersProblems(() -> {
				PathMappedEndpoints mapped = endpoints.getIfAvailable();
				return (mapped != null) ? mapped.getPath(DeadLettersArguments.ENDPOINT) : null;
			});
		}

	}

}

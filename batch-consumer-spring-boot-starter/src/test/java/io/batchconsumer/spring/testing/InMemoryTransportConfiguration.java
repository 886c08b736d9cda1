package io.batchconsumer.spring.testing;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.listener.PayloadConverter;
import io.batchconsumer.spring.listener.RawPayloadConverter;

/**
 * Supplies an {@link InMemoryTransport} that writes payloads with the starter's converter.
 */
@Configuration(proxyBeanMethods = false)
public class InMemoryTransportConfiguration {

	@Bean
	InMemoryTransport inMemoryTransport(ObjectProvider<PayloadConverter> converter) {
		return new InMemoryTransport(converter.getIfAvailable(RawPayloadConverter::new)::write);
	}

}

package io.batchconsumer.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import tools.jackson.databind.json.JsonMapper;

import io.batchconsumer.spring.listener.JsonPayloadConverter;
import io.batchconsumer.spring.listener.PayloadConverter;
import io.batchconsumer.spring.listener.RawPayloadConverter;

/**
 * The payload converter: JSON with the application's {@link JsonMapper} when Jackson 3 is on the
 * class path, else {@code String} and {@code byte[]} only. Imported in this order.
 */
final class PayloadConverterConfigurations {

	private PayloadConverterConfigurations() {
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JsonMapper.class)
	static class Json {

		@Bean
		@ConditionalOnMissingBean
		PayloadConverter batchConsumerPayloadConverter(ObjectProvider<JsonMapper> jsonMapper) {
			return new JsonPayloadConverter(jsonMapper.getIfAvailable(JsonMapper::shared));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Raw {

		@Bean
		@ConditionalOnMissingBean
		PayloadConverter batchConsumerPayloadConverter() {
			return new RawPayloadConverter();
		}

	}

}

package io.batchconsumer.sample;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binding and validation of the {@code sample.*} properties.
 */
class SamplePropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(PropertiesConfiguration.class);

	@Test
	void defaultsSuitADemo() {
		this.runner.run((context) -> {
			SampleProperties properties = context.getBean(SampleProperties.class);
			assertThat(properties.getLatency()).isEqualTo(Duration.ofMillis(2));
			assertThat(properties.getSlowShare()).isEqualTo(0.01);
			assertThat(properties.getSlowLatency()).isEqualTo(Duration.ofMillis(200));
			assertThat(properties.getChunkSize()).isEqualTo(500);
		});
	}

	@Test
	void aBadValueFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("sample.slow-share=1.5").run((context) -> assertThat(context)
			.getFailure()
			.rootCause()
			.hasMessageContaining("sample.slow-share must be between 0 and 1"));
		this.runner.withPropertyValues("sample.chunk-size=0").run((context) -> assertThat(context)
			.getFailure()
			.rootCause()
			.hasMessageContaining("sample.chunk-size must be between 1 and 10000"));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(SampleProperties.class)
	static class PropertiesConfiguration {

	}

}

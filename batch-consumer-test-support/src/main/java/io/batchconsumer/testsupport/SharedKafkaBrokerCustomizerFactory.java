package io.batchconsumer.testsupport;

import java.util.List;
import java.util.Map;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Carries out {@link SharedKafkaBroker}: creates its topics on the shared broker and puts
 * {@code spring.kafka.bootstrap-servers} first among the context's property sources.
 *
 * <p>Threading: stateless; Spring calls it on the test thread.
 */
public final class SharedKafkaBrokerCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		SharedKafkaBroker annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass,
				SharedKafkaBroker.class);
		return (annotation != null) ? new Customizer(List.of(annotation.topics()), annotation.partitions()) : null;
	}

	/** Equal for the same topics and partition count, as the context cache needs. */
	private record Customizer(List<String> topics, int partitions) implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			SharedKafka kafka = SharedKafka.instance();
			for (String topic : this.topics) {
				try {
					kafka.ensureTopic(topic, this.partitions);
				}
				catch (Exception ex) {
					throw new IllegalStateException("Could not create topic " + topic + " on the shared broker", ex);
				}
			}
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("sharedKafkaBroker",
						Map.of("spring.kafka.bootstrap-servers", kafka.bootstrap())));
		}

	}

}

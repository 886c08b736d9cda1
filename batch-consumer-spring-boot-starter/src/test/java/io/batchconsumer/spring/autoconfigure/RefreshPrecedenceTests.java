package io.batchconsumer.spring.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A refresh resolves a listener's options with the precedence of the start-up (attribute, listener
 * property, global property, default), also after the option was tuned on the running container:
 * a refreshed property never overrides what an attribute of {@code @BatchListener} sets.
 */
class RefreshPrecedenceTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class,
				BatchConsumerRefreshAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, AnnotatedListener.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s", "batch-consumer.thread-size=2");

	@Test
	void aRefreshedGlobalPropertyLeavesAnAttributeInForce() {
		this.runner.run((context) -> {
			assertThat(refresh(context, "batch-consumer.thread-size", "8")).isEmpty();
			assertThat(container(context).options().threadSize()).isEqualTo(3);
		});
	}

	@Test
	void aRefreshedGlobalPropertyAfterATuneLeavesTheAttributeAndTheTunedValueInForce() {
		this.runner.run((context) -> {
			BatchContainer container = container(context);
			container.tune(Map.of("thread-size", 5)).get(10, TimeUnit.SECONDS);
			context.getBean(EffectiveOptions.class).tuned("annotated", Map.of("thread-size", "5"));

			assertThat(refresh(context, "batch-consumer.thread-size", "8")).isEmpty();
			assertThat(container.options().threadSize()).isEqualTo(5);
			assertThat(context.getBean(EffectiveOptions.class).of("annotated").get("thread-size").source())
				.isEqualTo(EffectiveOption.Source.RUNTIME);
		});
	}

	@Test
	void aRefreshedGlobalPropertyStillTunesAListenerWithoutTheAttribute() {
		this.runner.run((context) -> {
			assertThat(refresh(context, "batch-consumer.consumer-batch-size", "7"))
				.containsEntry("annotated", Map.of("consumer-batch-size", 7));
			assertThat(container(context).options().consumerBatchSize()).isEqualTo(7);
		});
	}

	/** Sets a property as a refresh would and applies the change; returns the changes made. */
	private static Map<String, Map<String, Object>> refresh(AssertableApplicationContext context, String key,
			String value) {
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed", Map.of(key, value)));
		return context.getBean(RefreshTuning.class).apply(List.of(key));
	}

	private static BatchContainer container(AssertableApplicationContext context) {
		return context.getBean(BatchListenerContainerRegistry.class).getContainer("annotated");
	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotatedListener {

		@BatchListener(id = "annotated", topics = "annotated", threadSize = "3")
		void onMessages(List<String> messages) {
		}

	}

}

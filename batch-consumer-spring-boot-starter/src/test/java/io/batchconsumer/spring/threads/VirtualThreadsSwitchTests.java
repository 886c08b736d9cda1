package io.batchconsumer.spring.threads;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The virtual-thread switches on Java 17 to 20, the build JDK: {@code batch-consumer.virtual-threads=true}
 * fails start-up naming the property; Boot's {@code spring.threads.virtual.enabled=true} is ignored
 * with a warning and listeners run on platform threads.
 */
@EnabledForJreRange(max = JRE.JAVA_20)
@ExtendWith(OutputCaptureExtension.class)
class VirtualThreadsSwitchTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class, Listeners.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s");

	@Test
	void theExplicitSwitchFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("batch-consumer.virtual-threads=true").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("batch-consumer.virtual-threads=true needs Java 21 or later");
		});
	}

	@Test
	void bootsSwitchIsIgnoredWithAWarningAndListenersRunOnPlatformThreads(CapturedOutput output) {
		this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(BatchProducer.class).send("orders", "one");
			Listeners listeners = context.getBean(Listeners.class);
			await().until(() -> !listeners.threads.isEmpty());
			assertThat(listeners.threads).allMatch((name) -> name.startsWith("batch-consumer-orders-worker-"));
			assertThat(output).contains("spring.threads.virtual.enabled=true is ignored on Java");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final Set<String> threads = ConcurrentHashMap.newKeySet();

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(String payload) {
			this.threads.add(Thread.currentThread().getName());
		}

	}

}

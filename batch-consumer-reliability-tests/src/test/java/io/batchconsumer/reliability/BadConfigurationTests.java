package io.batchconsumer.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code batch-consumer.*} property, global and per listener, with values that must not
 * start: negative and zero sizes, unknown names, unparsable durations, data sizes, numbers and
 * booleans. Each fails start-up, and the failure names the full property: in the root cause when
 * the starter rejects the value, in the binding failure (what Spring Boot's failure analysis
 * prints as {@code Property: ...}) when the value cannot even be converted to its type.
 */
@Tag("integration")
class BadConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
				BatchConsumerAutoConfiguration.class))
		.withUserConfiguration(ListenerConfiguration.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:config-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"batch-consumer.auto-startup=false");

	@Test
	void theBaseConfigurationStarts() {
		this.runner.run((context) -> assertThat(context).hasNotFailed());
	}

	@ParameterizedTest(name = "{0}={1}")
	@MethodSource("invalidValues")
	void anInvalidValueFailsStartUpNamingTheProperty(String property, String value) {
		this.runner.withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).as("%s=%s", property, value).hasFailed();
			Throwable failure = context.getStartupFailure();
			List<String> messages = new ArrayList<>();
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				messages.add(String.valueOf(cause.getMessage()));
			}
			String root = messages.get(messages.size() - 1);
			if (isConversion(root)) {
				assertThat(messages).as("messages of the failure of %s=%s", property, value)
					.anySatisfy((message) -> assertThat(message).contains("'" + property + "'"));
			}
			else {
				assertThat(root).as("root cause of %s=%s", property, value).contains(property);
			}
		});
	}

	/** The value could not be converted to the property's type: Spring's binder names the property. */
	private static boolean isConversion(String rootMessage) {
		return !rootMessage.contains("batch-consumer.");
	}

	static Stream<Arguments> invalidValues() {
		List<Arguments> cases = new ArrayList<>();
		add(cases, "batch-consumer.enabled", "maybe");
		add(cases, "batch-consumer.transport", "rabbit", "");
		add(cases, "batch-consumer.group", " ");
		add(cases, "batch-consumer.health.stall-timeout", "0s", "-1m", "forever");
		add(cases, "batch-consumer.metrics.per-partition", "maybe");
		add(cases, "batch-consumer.metrics.refresh-interval", "0s", "-5s", "often");
		add(cases, "batch-consumer.jdbc.initialize-schema", "sometimes");
		add(cases, "batch-consumer.jdbc.table-prefix", "1bc_", "bc-", "", "a".repeat(41));
		add(cases, "batch-consumer.jdbc.queues-per-topic", "0", "-1", "1025", "four");
		add(cases, "batch-consumer.jdbc.lease-duration", "0s", "500ms", "-30s", "long");
		add(cases, "batch-consumer.jdbc.retention", "0s", "-7d", "a week");
		add(cases, "batch-consumer.jdbc.instance-id", " ", "i".repeat(121));
		for (String prefix : List.of("batch-consumer.", "batch-consumer.listeners.orders.")) {
			add(cases, prefix + "mode", "fanout");
			add(cases, prefix + "thread-size", "0", "-1", "10001", "ten");
			add(cases, prefix + "consumer-batch-size", "0", "-10");
			add(cases, prefix + "pull-batch-size", "0", "-32");
			add(cases, prefix + "pull-interval", "-1ms", "soon");
			add(cases, prefix + "ordering", "fifo");
			add(cases, prefix + "auto-startup", "maybe");
			add(cases, prefix + "shutdown-timeout", "-30s", "never");
			add(cases, prefix + "flow-control.pull-threshold-for-queue", "0", "-1000");
			add(cases, prefix + "flow-control.pull-threshold-size-for-queue", "0B", "-1MB", "lots");
			add(cases, prefix + "flow-control.max-span", "0", "-2000");
			add(cases, prefix + "flow-control.suspend", "-50ms", "a while");
			add(cases, prefix + "commit.interval", "-1s", "sometimes");
			add(cases, prefix + "retry.max-attempts", "0", "-3", "1001");
			add(cases, prefix + "retry.backoff", "-100ms", "quick");
			add(cases, prefix + "retry.multiplier", "0.5", "-2", "101", "double");
			add(cases, prefix + "retry.max-backoff", "-10s", "1ms");
			add(cases, prefix + "dead-letter.enabled", "maybe");
			add(cases, prefix + "retry.not-retryable", "com.example.NoSuchException", "java.lang.String",
					"java.lang.IllegalStateException,com.example.Missing");
			add(cases, prefix + "async.timeout", "0s", "-1s", "later");
		}
		add(cases, "batch-consumer.listeners.orders.group", " ");
		return cases.stream();
	}

	private static void add(List<Arguments> cases, String property, String... values) {
		for (String value : values) {
			cases.add(Arguments.of(property, value));
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	/** A listener with the id that the per-listener properties override. */
	static class Orders {

		@BatchListener(id = "orders", topics = "orders")
		void onOrder(String order) {
		}

	}

}

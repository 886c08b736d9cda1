package io.batchconsumer.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StreamUtils;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A mistyped {@code batch-consumer.*} name fails start-up naming the name and the closest valid
 * one; every documented property, global and per listener, is accepted. A listener id with a dot
 * (every default id, {@code <SimpleClassName>.<methodName>}) is a map key in brackets, and names
 * and suggestions say so. A real context on H2.
 */
@Tag("integration")
class UnknownPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
				BatchConsumerAutoConfiguration.class))
		.withUserConfiguration(PaymentsConfiguration.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:unknown-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"batch-consumer.auto-startup=false");

	@Test
	void aMistypedGlobalPropertyFailsNamingItAndTheClosestProperty() {
		assertFailsWith("batch-consumer.thred-size=4", "batch-consumer.thred-size is not a batch-consumer property",
				"did you mean batch-consumer.thread-size?");
	}

	@Test
	void aMistypedNestedPropertyFailsNamingItAndTheClosestProperty() {
		assertFailsWith("batch-consumer.retry.max-atempts=4", "batch-consumer.retry.max-atempts",
				"did you mean batch-consumer.retry.max-attempts?");
	}

	@Test
	void aMistypedListenerOptionFailsNamingItAndTheClosestOption() {
		assertFailsWith("batch-consumer.listeners.payments.consumer-bach-size=5",
				"batch-consumer.listeners.payments.consumer-bach-size is not a listener option",
				"did you mean batch-consumer.listeners.payments.consumer-batch-size?");
	}

	@Test
	void anOverrideOfAListenerThatDoesNotExistFailsNamingTheClosestListener() {
		assertFailsWith("batch-consumer.listeners.paymnets.thread-size=4",
				"batch-consumer.listeners.paymnets.thread-size overrides listener 'paymnets', but no @BatchListener has that id",
				"did you mean batch-consumer.listeners.payments.thread-size?");
	}

	@Test
	void anOverrideOfAnIdWithADotWrittenWithoutBracketsFailsNamingTheBracketFormWhichApplies() {
		String bracketed = "batch-consumer.listeners[Refunds.onRefund].thread-size";
		assertFailsWith("batch-consumer.listeners.Refunds.onRefund.thread-size=4",
				"batch-consumer.listeners.refunds.onrefund.thread-size names listener 'Refunds.onRefund' without brackets",
				"did you mean " + bracketed + "?");
		this.runner.withPropertyValues(bracketed + "=4").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(BatchListenerContainerRegistry.class)
				.getContainer("Refunds.onRefund")
				.options()
				.threadSize()).isEqualTo(4);
		});
	}

	@Test
	void aMistypedIdIsCorrectedInBracketsWhenTheClosestIdHasADot() {
		assertFailsWith("batch-consumer.listeners[Refunds.onRefnd].thread-size=4",
				"overrides listener 'Refunds.onRefnd', but no @BatchListener has that id",
				"did you mean batch-consumer.listeners[Refunds.onRefund].thread-size?");
	}

	@Test
	void aMistypedOptionOfAnIdWithADotIsCorrectedInBrackets() {
		assertFailsWith("batch-consumer.listeners[Refunds.onRefund].thred-size=4", "is not a listener option",
				"did you mean batch-consumer.listeners[Refunds.onRefund].thread-size?");
	}

	@Test
	void aBadValueOfAnIdWithADotIsNamedInBrackets() {
		assertFailsWith("batch-consumer.listeners[Refunds.onRefund].thread-size=0",
				"batch-consumer.listeners[Refunds.onRefund].thread-size");
	}

	@Test
	void aMistypedNameFailsStartUpBeforeAnyContainerIsAssignedWork() {
		List<String> assigned = Collections.synchronizedList(new ArrayList<>());
		ContainerObserverFactory recording = (listenerId) -> new ContainerObserver() {

			@Override
			public void sliceProcessed(TopicPartition partition, int messages, long nanos, int failed) {
			}

			@Override
			public void partitionsAssigned(Collection<TopicPartition> partitions) {
				assigned.add(listenerId + " " + partitions);
			}

		};
		this.runner.withBean(ContainerObserverFactory.class, () -> recording)
			.withPropertyValues("batch-consumer.auto-startup=true", "batch-consumer.thred-size=4")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("batch-consumer.thred-size");
			});
		assertThat(assigned).isEmpty();
	}

	@Test
	void theFailureSaysWhereTheNameWasWritten() {
		assertFailsWith("batch-consumer.thred-size=4", "batch-consumer.thred-size", "(\"batch-consumer.thred-size\" from property source");
	}

	@Test
	void everyDocumentedPropertyIsAcceptedGloballyAndPerListener() throws IOException {
		List<String> values = new ArrayList<>();
		for (Map<String, Object> property : documentedProperties()) {
			String name = (String) property.get("name");
			Object value = property.get("defaultValue");
			if (value instanceof List<?> list && list.isEmpty()) {
				value = ""; // an empty list property, written as text
			}
			if (name.startsWith("batch-consumer.") && !name.equals("batch-consumer.listeners")) {
				values.add(name + "=" + ((value != null) ? value : ("java.lang.Boolean".equals(property.get("type")) ? "false" : "x")));
				if (value != null && OptionCatalog.find(name.substring("batch-consumer.".length())) != null) {
					values.add("batch-consumer.listeners.payments." + name.substring("batch-consumer.".length()) + "=" + value);
				}
			}
		}
		values.addAll(List.of("batch-consumer.listeners.payments.topics[0]=payments",
				"batch-consumer.listeners.payments.group=billing", "batch-consumer.threadSize=4",
				"batch-consumer.listeners.payments.rocketmq.selector=paid || created",
				"batch-consumer.testing.extra=declared-elsewhere", "batch-consumer.testing.tags.region=eu",
				"batch-consumer.auto-startup=false"));
		assertThat(values).hasSizeGreaterThan(45);
		this.runner.withPropertyValues(values.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(BatchListenerContainerRegistry.class).getContainer("payments").options().group())
				.isEqualTo("billing");
		});
	}

	/** The properties of every generated metadata file on the class path (the starter's among them). */
	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> documentedProperties() throws IOException {
		List<Map<String, Object>> properties = new ArrayList<>();
		for (URL url : Collections.list(UnknownPropertiesTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				Map<String, Object> metadata = JsonParserFactory.getJsonParser()
					.parseMap(StreamUtils.copyToString(in, UTF_8));
				properties.addAll((List<Map<String, Object>>) metadata.get("properties"));
			}
		}
		return properties;
	}

	private void assertFailsWith(String property, String... messages) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			String message = String.valueOf(context.getStartupFailure().getCause() != null
					? rootCause(context.getStartupFailure()).getMessage() : context.getStartupFailure().getMessage());
			for (String expected : messages) {
				assertThat(message).contains(expected);
			}
		});
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	@Configuration(proxyBeanMethods = false)
	static class PaymentsConfiguration {

		@Bean
		Payments payments() {
			return new Payments();
		}

		@Bean
		Refunds refunds() {
			return new Refunds();
		}

	}

	/** The listener {@code payments}. */
	static class Payments {

		@BatchListener(id = "payments", topics = "payments")
		void onPayment(String payment) {
		}

	}

	/** A listener with the default id, {@code Refunds.onRefund}: it has a dot. */
	static class Refunds {

		@BatchListener(topics = "refunds")
		void onRefund(String refund) {
		}

	}

}

package io.batchconsumer.spring.autoconfigure;

import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What a user reads when a value or a name in their configuration file is bad: Spring Boot's
 * failure analysis names the property, the file and line it was written on, and the reason, once.
 */
@ExtendWith(OutputCaptureExtension.class)
@Tag("integration")
class StartupFailureAnalysisTests {

	@Test
	void aBadGlobalValueIsReportedOnceWithItsFileAndLine(CapturedOutput output) {
		start("bad-thread-size");
		String analysis = analysis(output);
		assertThat(analysis).contains("Property: batch-consumer.thread-size")
			.contains("Value: \"0\"")
			.contains("Origin: class path resource [bad-thread-size.properties] - 2:")
			.contains("Reason: java.lang.IllegalArgumentException: batch-consumer.thread-size must be between 1 and 10000 but was 0");
		assertThat(count(analysis, "Reason:")).as(analysis).isEqualTo(1);
	}

	@Test
	void aBadListenerValueInYamlIsReportedOnceWithItsFileAndLine(CapturedOutput output) {
		start("bad-listener-value");
		String analysis = analysis(output);
		assertThat(analysis).contains("Property: batch-consumer.listeners.orders.retry.multiplier")
			.contains("Origin: class path resource [bad-listener-value.yml] - 5:")
			.contains("Reason: java.lang.IllegalArgumentException: batch-consumer.listeners.orders.retry.multiplier must be between 1.0 and 100.0 but was 0.5");
		assertThat(count(analysis, "Reason:")).as(analysis).isEqualTo(1);
	}

	@Test
	void aMistypedNameIsReportedWithTheClosestNameAndItsFileAndLine(CapturedOutput output) {
		start("typo-thread-size");
		String analysis = analysis(output);
		assertThat(analysis).contains("Unknown batch-consumer configuration:")
			.contains("batch-consumer.thred-size is not a batch-consumer property; did you mean batch-consumer.thread-size?")
			.contains("class path resource [typo-thread-size.properties] - 2:")
			.contains("Action:")
			.contains("Correct the name, or remove it.");
	}

	@Test
	void aRetryQueueThatPartitionOrderingForbidsIsRefusedNamingWhereEachOptionIsSet() {
		assertThat(rootCause(start("retry-queue-under-partition-ordering"))).hasMessage(
				"batch-consumer.retry.blocking-limit (PT1S) is below a back-off of batch-consumer.retry.backoff/"
						+ "batch-consumer.listeners.orders.retry.levels, so failed messages of listener 'orders' would go "
						+ "to the retry queue and later messages of their partition would pass them, which "
						+ "batch-consumer.listeners.orders.ordering=partition forbids: set "
						+ "batch-consumer.listeners.orders.ordering=unordered, or raise batch-consumer.retry.blocking-limit "
						+ "above the longest back-off (retries then wait on their worker)");
	}

	@Test
	void aMaximumBackOffBelowTheBackOffIsReportedNamingBothProperties(CapturedOutput output) {
		start("max-backoff-below-backoff");
		String analysis = analysis(output);
		assertThat(analysis).contains("batch-consumer.listeners.orders.retry.max-backoff (PT0.005S) must not be less "
				+ "than batch-consumer.retry.backoff (PT0.01S)");
		assertThat(count(analysis, "must not be less")).as(analysis).isEqualTo(1);
	}

	private static Throwable start(String configName) {
		SpringApplication application = new SpringApplication(Application.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		Throwable failure = catchThrowable(() -> application.run("--spring.config.name=" + configName,
				"--spring.datasource.url=jdbc:h2:mem:analysis-" + UUID.randomUUID(), "--batch-consumer.auto-startup=false"));
		assertThat(failure).as("the application started").isNotNull();
		return failure;
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** The failure analysis Spring Boot printed, from its banner to its action. */
	private static String analysis(CapturedOutput output) {
		String all = output.getAll();
		int start = all.indexOf("APPLICATION FAILED TO START");
		assertThat(start).as("no failure analysis in:%n%s", all).isNotNegative();
		return all.substring(start);
	}

	private static int count(String text, String word) {
		Matcher matcher = Pattern.compile(Pattern.quote(word)).matcher(text);
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
			BatchConsumerAutoConfiguration.class })
	static class Application {

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(List<String> orders) {
		}

	}

}

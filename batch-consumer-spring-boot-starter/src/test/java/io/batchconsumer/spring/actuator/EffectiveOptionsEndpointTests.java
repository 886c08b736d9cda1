package io.batchconsumer.spring.actuator;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchContainerCustomizer;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code batchconsumer} endpoint, over HTTP, shows every effective option of a listener with
 * where it came from; an annotation attribute that overrides a property is logged at WARN.
 */
@ExtendWith(OutputCaptureExtension.class)
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=effective-tests",
				"management.endpoints.web.exposure.include=batchconsumer", "batch-consumer.shutdown-timeout=5s",
				"batch-consumer.auto-startup=false", "batch-consumer.retry.max-attempts=5",
				"batch-consumer.listeners.payments.thread-size=8",
				"batch-consumer.listeners.payments.consumer-batch-size=7",
				"batch-consumer.listeners[Listeners.onRefunds].consumer-batch-size=9",
				"batch-consumer.listeners[Listeners.onRefunds].processing=exactly-once" })
@AutoConfigureRestTestClient
@Tag("integration")
class EffectiveOptionsEndpointTests {

	@Autowired
	private RestTestClient restTestClient;

	@Test
	void everyOptionIsShownWithItsSource() {
		JsonNode options = options();
		assertThat(options.path("thread-size").path("value").asString()).isEqualTo("3");
		assertThat(options.path("thread-size").path("source").asString()).isEqualTo("ANNOTATION");
		assertThat(options.path("thread-size").path("property").asString())
			.isEqualTo("threadSize of @BatchListener on Listeners.onPayments(List<String>)");
		assertThat(options.path("consumer-batch-size").path("value").asString()).isEqualTo("7");
		assertThat(options.path("consumer-batch-size").path("source").asString()).isEqualTo("LISTENER_PROPERTY");
		assertThat(options.path("consumer-batch-size").path("property").asString())
			.isEqualTo("batch-consumer.listeners.payments.consumer-batch-size");
		assertThat(options.path("consumer-batch-size").path("origin").asString()).isNotBlank();
		assertThat(options.path("thread-size").has("origin")).as("no origin: left out, as docs/configuration.md says")
			.isFalse();
		assertThat(options.path("retry.max-attempts").path("value").asString()).isEqualTo("5");
		assertThat(options.path("retry.max-attempts").path("source").asString()).isEqualTo("GLOBAL_PROPERTY");
		assertThat(options.path("flow-control.max-span").path("value").asString()).isEqualTo("2000");
		assertThat(options.path("flow-control.max-span").path("source").asString()).isEqualTo("DEFAULT");
		assertThat(options.path("flow-control.max-span").has("origin")).isFalse();
		assertThat(options.path("ordering").path("value").asString()).isEqualTo("key");
		assertThat(options.path("processing").path("value").asString()).as("spelled as it is written in properties")
			.isEqualTo("at-least-once");
		assertThat(options.path("group").path("value").asString()).isEqualTo("effective-tests");
		assertThat(options.path("group").path("property").asString()).isEqualTo("spring.application.name");
		assertThat(options.path("auto-startup").path("value").asString()).isEqualTo("false");
		assertThat(options.path("pull-batch-size").path("value").asString()).isEqualTo("64");
		assertThat(options.path("pull-batch-size").path("source").asString()).isEqualTo("CUSTOMIZER");
	}

	@Test
	void aListenerPropertyOfAnIdWithADotIsShownInBrackets() {
		JsonNode options = options("Listeners.onRefunds");
		assertThat(options.path("consumer-batch-size").path("value").asString()).isEqualTo("9");
		assertThat(options.path("consumer-batch-size").path("source").asString()).isEqualTo("LISTENER_PROPERTY");
		assertThat(options.path("consumer-batch-size").path("property").asString())
			.as("the name as it can be written: a map key with a dot goes in brackets")
			.isEqualTo("batch-consumer.listeners[Listeners.onRefunds].consumer-batch-size");
		assertThat(options.path("processing").path("value").asString()).isEqualTo("exactly-once");
		assertThat(options.path("processing").path("source").asString()).isEqualTo("LISTENER_PROPERTY");
	}

	@Test
	void everyOptionOfTheTableIsShown() {
		JsonNode options = options();
		assertThat(options.propertyNames()).contains("topics", "group", "mode", "thread-size", "consumer-batch-size",
				"pull-batch-size", "pull-interval", "ordering", "flow-control.pull-threshold-for-queue",
				"flow-control.pull-threshold-size-for-queue", "flow-control.max-span", "flow-control.suspend",
				"commit.interval", "retry.max-attempts", "retry.backoff", "retry.multiplier", "retry.max-backoff",
				"dead-letter.enabled", "shutdown-timeout", "auto-startup");
	}

	@Test
	void anAttributeThatOverridesAPropertyIsLoggedAtWarn(CapturedOutput output) {
		options();
		assertThat(output.getAll()).contains("WARN")
			.contains("threadSize of @BatchListener on Listeners.onPayments(List<String>) = '3' overrides the property "
					+ "batch-consumer.listeners.payments.thread-size");
	}

	private JsonNode options() {
		return options("payments");
	}

	private JsonNode options(String id) {
		ActuatorClient.Response response = new ActuatorClient(this.restTestClient).get("/actuator/batchconsumer/" + id);
		assertThat(response.status()).isEqualTo(200);
		return response.body().path("options");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		BatchContainerCustomizer largerPulls() {
			return (id, builder) -> builder.pullBatchSize(64);
		}

	}

	@Component
	static class Listeners {

		@BatchListener(id = "payments", topics = "payments", threadSize = "3")
		void onPayments(List<String> payments) {
		}

		/** The default id, {@code Listeners.onRefunds}, has a dot. */
		@BatchListener(topics = "refunds")
		void onRefunds(List<String> refunds) {
		}

	}

}

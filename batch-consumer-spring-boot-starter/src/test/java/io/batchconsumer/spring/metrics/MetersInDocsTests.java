package io.batchconsumer.spring.metrics;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every series that {@code docs/grafana-dashboard.json} and {@code docs/prometheus-alerts.yml} use
 * exists, with every exact label value they select, in the Prometheus scrape of a running context
 * (H2 file database) within a second of its first message; and the meters of that context (one
 * at-least-once and one exactly-once listener) are exactly the meters {@code docs/metrics.md} lists.
 */
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=docs-meters", "batch-consumer.jdbc.queues-per-topic=1",
		"batch-consumer.shutdown-timeout=2s", "batch-consumer.listeners.docs-eo.processing=exactly-once" })
@Tag("integration")
class MetersInDocsTests {

	private static final Path DOCS = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().resolve("docs");

	private static final Pattern SERIES = Pattern.compile("(batch_consumer_[a-z_]+[a-z])(\\{([^}]*)\\})?");

	/** A row of a meter table: {@code | `batch.consumer.name` | ...}. */
	private static final Pattern METER_ROW = Pattern.compile("(?m)^\\| `(batch\\.consumer\\.[a-z._]+)` \\|");

	private static final Pattern EXACT_LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

	@Autowired
	private PrometheusMeterRegistry prometheus;

	@Autowired
	private BatchProducer producer;

	@Test
	void everySeriesTheDashboardAndTheAlertsUseIsScrapedFromARunningApplication() throws Exception {
		Map<String, List<String>> used = new LinkedHashMap<>();
		used.putAll(selectors(Files.readString(DOCS.resolve("grafana-dashboard.json"))));
		selectors(Files.readString(DOCS.resolve("prometheus-alerts.yml"))).forEach((name, labels) -> used
			.computeIfAbsent(name, (key) -> new ArrayList<>())
			.addAll(labels));
		assertThat(used).containsKeys("batch_consumer_commit_lag", "batch_consumer_flow_control_total",
				"batch_consumer_messages_total", "batch_consumer_paused_partitions");
		this.producer.send("docs", "one");
		await().atMost(Duration.ofSeconds(1)).untilAsserted(() -> {
			String scrape = this.prometheus.scrape();
			used.forEach((name, labels) -> {
				List<String> lines = scrape.lines().filter((line) -> line.startsWith(name + "{")).toList();
				assertThat(lines).as(name).isNotEmpty();
				for (String label : labels) {
					assertThat(lines).as(name + " with " + label).anyMatch((line) -> line.contains(label));
				}
			});
		});
	}

	@Test
	void theMetersOfARunningApplicationAreExactlyTheMetersTheMetricsPageLists() throws Exception {
		Set<String> documented = new TreeSet<>();
		Matcher row = METER_ROW.matcher(Files.readString(DOCS.resolve("metrics.md")));
		while (row.find()) {
			documented.add(row.group(1));
		}
		assertThat(documented).contains("batch.consumer.messages", "batch.consumer.slice.duration");
		this.producer.send("docs", "one");
		this.producer.send("docs-eo", "one");
		// The observation's timer exists once the first delivery ended, so more than a second here.
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Set<String> registered = new TreeSet<>();
			this.prometheus.getMeters().stream().map((meter) -> meter.getId().getName())
				.filter((name) -> name.startsWith("batch.consumer.")).forEach(registered::add);
			assertThat(registered).as("meters registered (left) and listed in docs/metrics.md (right)")
				.containsExactlyElementsOf(documented);
		});
	}

	/** Series names and, per name, the exact {@code label="value"} matchers used with it. */
	private static Map<String, List<String>> selectors(String text) {
		Map<String, List<String>> selectors = new LinkedHashMap<>();
		Matcher series = SERIES.matcher(text.replace("\\\"", "\""));
		while (series.find()) {
			List<String> labels = selectors.computeIfAbsent(series.group(1), (key) -> new ArrayList<>());
			if (series.group(3) != null) {
				Matcher label = EXACT_LABEL.matcher(series.group(3));
				while (label.find()) {
					labels.add(label.group(1) + "=\"" + label.group(2) + "\"");
				}
			}
		}
		return selectors;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		PrometheusMeterRegistry prometheusMeterRegistry() {
			return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		}

	}

	@Component
	static class Listeners {

		@BatchListener(id = "docs", topics = "docs")
		void onDocs(String payload) {
		}

		@BatchListener(id = "docs-eo", topics = "docs-eo")
		void onExactlyOnce(List<String> payloads) {
		}

	}

}

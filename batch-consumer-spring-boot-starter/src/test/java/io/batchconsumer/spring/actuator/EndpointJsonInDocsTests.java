package io.batchconsumer.spring.actuator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The JSON examples of the endpoints in {@code docs/} agree with what a running application (Spring
 * MVC, Actuator, H2 file) answers: every field an example shows is there with the same kind of value,
 * every field the application shows is in the example or in the page's field table, and no field is
 * shown as {@code null} (the docs say nulls are left out). An empty queue's offsets are what the field
 * table says they are.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=docs-json",
				"management.endpoints.web.exposure.include=batchconsumer,deadletters",
				"management.endpoint.deadletters.access=unrestricted", "batch-consumer.shutdown-timeout=2s",
				"batch-consumer.retry.max-attempts=1", "batch-consumer.jdbc.queues-per-topic=1" })
@AutoConfigureRestTestClient
@Tag("integration")
class EndpointJsonInDocsTests {

	private static final Path DOCS = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent().resolve("docs");

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** Fields whose values are maps by a name (listener ids, option keys, header names), not fixed fields. */
	private static final Set<String> MAPS = Set.of("listeners", "options", "headers");

	private static final CountDownLatch RELEASE = new CountDownLatch(1);

	@Autowired
	private RestTestClient restTestClient;

	@Autowired
	private BatchProducer producer;

	private ActuatorClient actuator;

	@BeforeEach
	void client() {
		this.actuator = new ActuatorClient(this.restTestClient);
	}

	@AfterAll
	static void release() {
		RELEASE.countDown();
	}

	@Test
	void theBatchConsumerEndpointIsAsTheMetersPageShowsIt() throws Exception {
		String page = Files.readString(DOCS.resolve("metrics.md"));
		JsonNode example = JSON.readTree(jsonBlockAfter(page, "## The `batchconsumer` endpoint"));
		this.producer.sendBatchOrThrow("replay",
				IntStream.range(0, 10).mapToObj((i) -> OutgoingMessage.of("k" + i, "m" + i)).toList());
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.actuator.get("/actuator/batchconsumer/replay").body().at("/partitions/0/batches").size() > 0);
		JsonNode live = this.actuator.get("/actuator/batchconsumer").body();
		List<String> problems = new ArrayList<>();
		compare(example, live, "", problems);
		nulls(live, "", problems);
		Set<String> documented = fieldTableRows(page);
		undocumented(live.at("/listeners/replay"), documented, "", problems);
		assertThat(problems).as("docs/metrics.md against the live endpoint: %s", live).isEmpty();
	}

	@Test
	void anEmptyQueuesOffsetsAreWhatTheFieldTableSays() throws Exception {
		String page = Files.readString(DOCS.resolve("metrics.md"));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.actuator.get("/actuator/batchconsumer/idle").body().path("partitions").size() > 0);
		JsonNode partition = this.actuator.get("/actuator/batchconsumer/idle").body().at("/partitions/0");
		for (String field : List.of("fetchedOffset", "committedOffset")) {
			long value = partition.path(field).asLong();
			assertThat(fieldTableRow(page, field)).as("the row of %s, which is %d on an empty queue", field, value)
				.contains("`" + value + "`")
				.containsIgnoringCase("empty queue");
		}
	}

	@Test
	void theDeadLettersEndpointIsAsTheDeadLettersPageShowsIt() throws Exception {
		String page = Files.readString(DOCS.resolve("dead-letters.md"));
		JsonNode example = JSON.readTree(curlOutputAfter(page, "$ curl 'localhost:8080/actuator/deadletters/payments?size=1'"));
		this.producer.sendBatchOrThrow("payments", List.of(OutgoingMessage.of("customer-1", "poison-1")));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.actuator.get("/actuator/deadletters/payments").body().path("total").asLong() > 0);
		JsonNode live = this.actuator.get("/actuator/deadletters/payments?size=1").body();
		List<String> problems = new ArrayList<>();
		compare(example, live, "", problems);
		compare(live, example, "", problems);
		nulls(live, "", problems);
		String id = live.at("/deadLetters/0/id").asString();
		nulls(this.actuator.get("/actuator/deadletters/payments/" + id).body(), "/shown", problems);
		assertThat(problems).as("docs/dead-letters.md against the live endpoint: %s", live).isEmpty();
	}

	/** Every field of the example is in the live JSON with the same kind of value. */
	private static void compare(JsonNode example, JsonNode live, String path, List<String> problems) {
		if (example.isObject()) {
			for (Map.Entry<String, JsonNode> field : example.properties()) {
				String name = field.getKey();
				JsonNode liveValue = live.get(name);
				if (liveValue == null) {
					problems.add(path + "/" + name + " is in the docs but not in the live JSON");
				}
				else if (!MAPS.contains(name)) {
					compare(field.getValue(), liveValue, path + "/" + name, problems);
				}
				else {
					for (Map.Entry<String, JsonNode> entry : field.getValue().properties()) {
						JsonNode liveEntry = liveValue.get(entry.getKey());
						if (liveEntry != null) {
							compare(entry.getValue(), liveEntry, path + "/" + name + "/" + entry.getKey(), problems);
						}
					}
				}
			}
		}
		else if (example.isArray()) {
			if (!live.isArray()) {
				problems.add(path + " is an array in the docs but " + live.getNodeType() + " live");
			}
			else if (!example.isEmpty() && !live.isEmpty()) {
				compare(example.get(0), live.get(0), path + "/0", problems);
			}
		}
		else if (example.getNodeType() != live.getNodeType() && !(example.isNumber() && live.isNumber())) {
			problems.add(path + " is " + example.getNodeType() + " in the docs but " + live.getNodeType() + " live");
		}
	}

	/** No field is shown as {@code null}. */
	private static void nulls(JsonNode live, String path, List<String> problems) {
		if (live.isNull()) {
			problems.add(path + " is null; the docs say nulls are left out");
		}
		for (Map.Entry<String, JsonNode> field : live.properties()) {
			nulls(field.getValue(), path + "/" + field.getKey(), problems);
		}
		for (int i = 0; i < live.size() && live.isArray(); i++) {
			nulls(live.get(i), path + "/" + i, problems);
		}
	}

	/** Every field of the live JSON has a row in the page's field table. */
	private static void undocumented(JsonNode live, Set<String> documented, String path, List<String> problems) {
		for (Map.Entry<String, JsonNode> field : live.properties()) {
			if (!documented.contains(field.getKey())) {
				problems.add(path + "/" + field.getKey() + " has no row in the field table");
			}
			if (!MAPS.contains(field.getKey())) {
				JsonNode value = field.getValue();
				undocumented(value.isArray() && !value.isEmpty() ? value.get(0) : value, documented,
						path + "/" + field.getKey(), problems);
			}
		}
	}

	private static String jsonBlockAfter(String page, String heading) {
		int start = page.indexOf("```json", page.indexOf(heading)) + "```json".length();
		return page.substring(start, page.indexOf("```", start));
	}

	private static String curlOutputAfter(String page, String command) {
		int start = page.indexOf('\n', page.indexOf(command)) + 1;
		int end = page.indexOf("\n\n", start);
		return page.substring(start, end);
	}

	private static final Pattern FIELD_ROW = Pattern.compile("(?m)^\\| `([a-zA-Z]+)` \\|(.*)$");

	private static Set<String> fieldTableRows(String page) {
		Set<String> fields = new java.util.TreeSet<>();
		Matcher matcher = FIELD_ROW.matcher(page);
		while (matcher.find()) {
			fields.add(matcher.group(1));
		}
		return fields;
	}

	private static String fieldTableRow(String page, String field) {
		Matcher matcher = FIELD_ROW.matcher(page);
		while (matcher.find()) {
			if (matcher.group(1).equals(field)) {
				return matcher.group(2);
			}
		}
		return "";
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		@BatchListener(id = "replay", topics = "replay", threadSize = "4", consumerBatchSize = "2")
		void onReplay(List<String> messages) throws InterruptedException {
			RELEASE.await(30, TimeUnit.SECONDS);
		}

		@BatchListener(id = "payments", topics = "payments")
		void onPayments(List<String> payments) {
			throw new IllegalArgumentException("cannot bill");
		}

		@BatchListener(id = "idle", topics = "idle")
		void onIdle(List<String> messages) {
		}

	}

}

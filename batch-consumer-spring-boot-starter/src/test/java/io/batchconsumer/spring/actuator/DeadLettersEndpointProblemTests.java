package io.batchconsumer.spring.actuator;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad requests to the {@code deadletters} endpoint, over HTTP in a Spring MVC application with
 * Boot's default error settings: each answers {@code 400} with an RFC 9457 problem detail
 * ({@code application/problem+json}) whose {@code detail} says what was wrong and what is expected.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=dead-letter-problem-tests",
				"management.endpoints.web.exposure.include=deadletters",
				"management.endpoint.deadletters.access=unrestricted", "batch-consumer.shutdown-timeout=5s",
				"batch-consumer.auto-startup=false" })
@AutoConfigureRestTestClient
@Tag("integration")
class DeadLettersEndpointProblemTests {

	@Autowired
	private RestTestClient restTestClient;

	@Test
	void idsAsAJsonArrayAreAProblemThatShowsTheExpectedShape() {
		JsonNode problem = problem(post("/actuator/deadletters/payments/replay", Map.of("ids", List.of(4, 5))));
		assertThat(problem.path("detail").asString()).contains("'ids' must be text")
			.contains("{\"ids\": \"4,5\"}");
	}

	@Test
	void missingIdsAreAProblemThatShowsTheExpectedShape() {
		JsonNode problem = problem(post("/actuator/deadletters/payments/replay", Map.of()));
		assertThat(problem.path("detail").asString()).contains("'ids'").contains("{\"ids\": \"4,5\"}");
	}

	@Test
	void anUnknownFieldIsAProblemThatNamesItAndTheKnownOnes() {
		JsonNode problem = problem(
				post("/actuator/deadletters/payments/replay", Map.of("ids", "4", "topic", "payments")));
		assertThat(problem.path("detail").asString()).contains("'topic'").contains("'ids'");
	}

	@Test
	void aPageSizeOfZeroIsAProblemThatGivesTheRange() {
		JsonNode problem = problem(get("/actuator/deadletters/payments?size=0"));
		assertThat(problem.path("detail").asString()).contains("size").contains("1").contains("1000").contains("0");
	}

	@Test
	void aPageSizeThatIsNotANumberIsAProblem() {
		JsonNode problem = problem(get("/actuator/deadletters/payments?size=ten"));
		assertThat(problem.path("detail").asString()).contains("'size'").contains("'ten'");
	}

	@Test
	void anUnknownQueryParameterIsAProblem() {
		JsonNode problem = problem(get("/actuator/deadletters/payments?limit=5"));
		assertThat(problem.path("detail").asString()).contains("'limit'").contains("'page'").contains("'size'");
	}

	@Test
	void anUnknownOperationOrListenerIsAProblem() {
		assertThat(problem(post("/actuator/deadletters/payments/forget", Map.of("ids", "4"))).path("detail")
			.asString()).contains("'forget'").contains("replay");
		assertThat(problem(post("/actuator/deadletters/nobody/replay", Map.of("ids", "4"))).path("detail")
			.asString()).contains("'nobody'").contains("payments");
	}

	@Test
	void goodRequestsAreUnchanged() {
		EntityExchangeResult<JsonNode> page = get("/actuator/deadletters/payments?page=0&size=5");
		assertThat(page.getStatus().value()).isEqualTo(200);
		assertThat(page.getResponseBody().path("size").asInt()).isEqualTo(5);
		EntityExchangeResult<JsonNode> replay = post("/actuator/deadletters/payments/replay", Map.of("ids", "4,5"));
		assertThat(replay.getStatus().value()).isEqualTo(200);
		assertThat(replay.getResponseBody().path("results")).hasSize(2);
	}

	private static JsonNode problem(EntityExchangeResult<JsonNode> result) {
		assertThat(result.getStatus().value()).isEqualTo(400);
		assertThat(result.getResponseHeaders().getContentType()).isNotNull()
			.satisfies((type) -> assertThat(type.isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)).isTrue());
		JsonNode body = result.getResponseBody();
		assertThat(body.path("type").asString()).isEqualTo("about:blank");
		assertThat(body.path("title").asString()).isEqualTo("Bad Request");
		assertThat(body.path("status").asInt()).isEqualTo(400);
		assertThat(body.path("instance").asString()).startsWith("/actuator/deadletters/");
		return body;
	}

	private EntityExchangeResult<JsonNode> get(String path) {
		return this.restTestClient.get().uri(path).exchange().returnResult(JsonNode.class);
	}

	private EntityExchangeResult<JsonNode> post(String path, Map<String, Object> body) {
		return this.restTestClient.post()
			.uri(path)
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange()
			.returnResult(JsonNode.class);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		@BatchListener(id = "payments", topics = "payments")
		void onPayments(List<String> payments) {
		}

	}

}

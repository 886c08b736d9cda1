package io.batchconsumer.spring.actuator;

import java.util.Map;

import tools.jackson.databind.JsonNode;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * Reads and posts Actuator JSON over HTTP for the tests.
 */
final class ActuatorClient {

	private final RestTestClient client;

	ActuatorClient(RestTestClient client) {
		this.client = client;
	}

	Response get(String path) {
		return Response.of(this.client.get().uri(path).exchange().returnResult(JsonNode.class));
	}

	Response post(String path, Map<String, Object> body) {
		return Response.of(this.client.post()
			.uri(path)
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange()
			.returnResult(JsonNode.class));
	}

	/** The health details of one listener in the {@code batchConsumer} component. */
	JsonNode listenerHealth(String listener) {
		return get("/actuator/health").body().at("/components/batchConsumer/details/listeners/" + listener);
	}

	/** The status of the {@code batchConsumer} component. */
	String batchConsumerStatus() {
		return get("/actuator/health").body().at("/components/batchConsumer/status").asString();
	}

	/** One partition of a listener, as the {@code batchconsumer} endpoint shows it. */
	JsonNode partition(String listener, int index) {
		return get("/actuator/batchconsumer/" + listener).body().at("/partitions/" + index);
	}

	/**
	 * The value of a meter from {@code /actuator/metrics}, summed over every meter with the tags.
	 * @param name the meter name
	 * @param statistic {@code VALUE}, {@code COUNT}, ...
	 * @param tags {@code key:value} pairs
	 * @return the value, or {@code NaN} when there is no such meter
	 */
	double metric(String name, String statistic, String... tags) {
		StringBuilder uri = new StringBuilder("/actuator/metrics/").append(name);
		for (int i = 0; i < tags.length; i++) {
			uri.append((i == 0) ? '?' : '&').append("tag=").append(tags[i]);
		}
		Response response = get(uri.toString());
		if (response.status() != 200) {
			return Double.NaN;
		}
		for (JsonNode measurement : response.body().path("measurements")) {
			if (statistic.equals(measurement.path("statistic").asString())) {
				return measurement.path("value").asDouble();
			}
		}
		return Double.NaN;
	}

	/**
	 * An HTTP response.
	 *
	 * @param status the status code
	 * @param body the JSON body, or {@code null} when there was none
	 */
	record Response(int status, JsonNode body) {

		static Response of(EntityExchangeResult<JsonNode> result) {
			return new Response(result.getStatus().value(), result.getResponseBody());
		}

	}

}

package io.batchconsumer.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.sample.OrderController.OrderStats;
import io.batchconsumer.sample.OrderPublisher.PublishResult;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample service on its embedded default (an H2 file database, here in a temporary folder),
 * driven over HTTP as a user would: publish orders, watch them processed and audited, read health
 * and metrics.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.progress-interval=1s", "batch-consumer.commit.interval=100ms" })
@AutoConfigureRestTestClient
@Tag("integration")
class SampleApplicationTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private JdbcTemplate jdbcTemplate;

	@Autowired
	private ProcessedOrders processedOrders;

	@Test
	void ordersPublishedOverHttpAreAllProcessedAuditedAndCommitted() {
		PublishResult published = this.client.post()
			.uri("/orders?count=1000&latencyMs=1&slowShare=0.01")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(PublishResult.class)
			.returnResult()
			.getResponseBody();
		assertThat(published).isNotNull();
		assertThat(published.stored()).isEqualTo(1000);
		assertThat(published.failed()).isZero();
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
			assertThat(processed(published.requestId())).isEqualTo(1000);
			assertThat(stats().listeners()).allSatisfy((id, listener) -> {
				assertThat(listener.backlog()).as("backlog of %s", id).isZero();
				assertThat(listener.commitLag()).as("commit lag of %s", id).isZero();
			});
		});
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(stats().audited()).isGreaterThanOrEqualTo(1000));
		OrderStats stats = stats();
		assertThat(stats.published()).isGreaterThanOrEqualTo(1000);
		assertThat(stats.processedTotal()).isGreaterThanOrEqualTo(1000);
		assertThat(stats.listeners()).containsOnlyKeys("orders", "audit");
		assertThat(stats.listeners().get("orders").deadLettered()).isZero();
	}

	@Test
	void healthIsUpWithTheDatabaseAndBothListeners() {
		this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.components.db.status")
			.isEqualTo("UP")
			.jsonPath("$.components.batchConsumer.status")
			.isEqualTo("UP")
			.jsonPath("$.components.batchConsumer.details.listeners.orders.state")
			.isEqualTo("RUNNING")
			.jsonPath("$.components.batchConsumer.details.listeners.audit.state")
			.isEqualTo("RUNNING");
	}

	@Test
	void theBatchConsumerEndpointIsReadOnly() {
		this.client.get()
			.uri("/actuator/batchconsumer")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.listeners.orders.group")
			.isEqualTo("billing")
			.jsonPath("$.listeners.audit.group")
			.isEqualTo("auditing");
		this.client.post()
			.uri("/actuator/batchconsumer/orders/pause")
			.exchange()
			.expectStatus()
			.value((status) -> assertThat(status).isBetween(400, 499));
		this.client.get()
			.uri("/actuator/batchconsumer/orders")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.state")
			.isEqualTo("RUNNING");
	}

	@Test
	void theBatchConsumerMetersArePublished() {
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> this.client.get()
			.uri("/actuator/metrics/batch.consumer.backlog?tag=listener:orders")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.measurements[0].value")
			.isNumber());
		for (String meter : new String[] { "batch.consumer.commit.lag", "batch.consumer.messages",
				"batch.consumer.commits", "batch.consumer.flow.control", "batch.consumer.thread.batches.open" }) {
			this.client.get().uri("/actuator/metrics/" + meter).exchange().expectStatus().isOk();
		}
	}

	@Test
	void metricsAndThePrometheusScrapeAreExposed() {
		this.client.post().uri("/orders?count=10").exchange().expectStatus().isOk();
		this.client.get()
			.uri("/actuator/metrics")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.names")
			.value((names) -> assertThat(names.toString()).contains("http.server.requests", "hikaricp.connections",
					"jvm.memory.used"));
		this.client.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.value((body) -> assertThat(body).contains("http_server_requests_seconds_count",
					"batch_consumer_messages_total{listener=\"orders\",outcome=\"success\"}"));
	}

	@Test
	void recordingAnOrderTwiceKeepsOneRow() {
		Order order = new Order("twice-1", "customer-1", new BigDecimal("12.50"), Instant.now(), 0);
		this.processedOrders.record(List.of(order), Instant.now());
		this.processedOrders.record(List.of(order), Instant.now());
		assertThat(this.jdbcTemplate.queryForObject("SELECT COUNT(*) FROM processed_orders WHERE id = 'twice-1'",
				Long.class)).isEqualTo(1);
	}

	@Test
	void badPublishRequestsAreRejected() {
		this.client.post().uri("/orders?count=0").exchange().expectStatus().isBadRequest();
		this.client.post().uri("/orders?count=10&slowShare=1.5").exchange().expectStatus().isBadRequest();
		this.client.post().uri("/orders?count=10&latencyMs=-1").exchange().expectStatus().isBadRequest();
		this.client.post().uri("/orders").exchange().expectStatus().isBadRequest();
	}

	private long processed(String requestId) {
		Long count = this.jdbcTemplate.queryForObject("SELECT COUNT(*) FROM processed_orders WHERE id LIKE ?",
				Long.class, requestId + "-%");
		return (count != null) ? count : 0;
	}

	private OrderStats stats() {
		OrderStats stats = this.client.get()
			.uri("/orders/stats")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(OrderStats.class)
			.returnResult()
			.getResponseBody();
		assertThat(stats).isNotNull();
		return stats;
	}

}

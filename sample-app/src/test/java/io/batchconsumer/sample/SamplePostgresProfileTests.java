package io.batchconsumer.sample;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.sample.OrderPublisher.PublishResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code postgres} profile on a real PostgreSQL (embedded, started from Maven): the transport
 * creates its tables ({@code initialize-schema=always}), {@code processed_orders} takes the
 * PostgreSQL form of "insert, ignore duplicates", and published orders are all processed. The
 * server is a bean, so it stops only after the containers made their final commit.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "batch-consumer.commit.interval=100ms", "sample.slow-share=0" })
@ActiveProfiles("postgres")
@AutoConfigureRestTestClient
@Tag("integration")
class SamplePostgresProfileTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private JdbcTemplate jdbcTemplate;

	@Autowired
	private ProcessedOrders processedOrders;

	@Test
	void ordersAreProcessedOnPostgresql() {
		PublishResult published = this.client.post()
			.uri("/orders?count=300&latencyMs=1")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(PublishResult.class)
			.returnResult()
			.getResponseBody();
		assertThat(published).isNotNull();
		assertThat(published.stored()).isEqualTo(300);
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(this.jdbcTemplate.queryForObject(
					"SELECT COUNT(*) FROM processed_orders WHERE id LIKE ?", Long.class, published.requestId() + "-%"))
				.isEqualTo(300));
		assertThat(this.jdbcTemplate.queryForObject("SELECT COUNT(*) FROM bc_message WHERE topic = 'orders'",
				Long.class)).isGreaterThanOrEqualTo(300);
	}

	@Test
	void recordingAnOrderTwiceKeepsOneRow() {
		Order order = new Order("twice-1", "customer-1", new BigDecimal("12.50"), Instant.now(), 0);
		this.processedOrders.record(List.of(order), Instant.now());
		this.processedOrders.record(List.of(order), Instant.now());
		assertThat(this.jdbcTemplate.queryForObject("SELECT COUNT(*) FROM processed_orders WHERE id = 'twice-1'",
				Long.class)).isEqualTo(1);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Postgres {

		@Bean(destroyMethod = "close")
		EmbeddedPostgres embeddedPostgres() throws IOException {
			return EmbeddedPostgres.builder().start();
		}

		@Bean
		DataSource dataSource(EmbeddedPostgres postgres) {
			return DataSourceBuilder.create()
				.url(postgres.getJdbcUrl("postgres", "postgres"))
				.username("postgres")
				.build();
		}

	}

}

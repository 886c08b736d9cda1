package io.batchconsumer.sample;

import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.sample.OrderPublisher.PublishResult;
import io.batchconsumer.testsupport.H2FileDatabase;
import io.batchconsumer.testsupport.SharedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code kafka} profile on a real in-process Kafka broker: the same listeners, unchanged, run
 * on the Kafka transport; published orders are all processed and audited.
 */
@SharedKafkaBroker(partitions = 4, topics = { "orders", "audit" })
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "batch-consumer.commit.interval=100ms", "sample.slow-share=0" })
@ActiveProfiles("kafka")
@AutoConfigureRestTestClient
@Tag("integration")
class SampleKafkaProfileTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private JdbcTemplate jdbcTemplate;

	@Autowired
	private Transport transport;

	@Test
	void ordersAreProcessedOnKafka() {
		assertThat(this.transport).isInstanceOf(KafkaTransport.class);
		PublishResult published = this.client.post()
			.uri("/orders?count=500&latencyMs=1")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(PublishResult.class)
			.returnResult()
			.getResponseBody();
		assertThat(published).isNotNull();
		assertThat(published.stored()).isEqualTo(500);
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(this.jdbcTemplate.queryForObject(
					"SELECT COUNT(*) FROM processed_orders WHERE id LIKE ?", Long.class, published.requestId() + "-%"))
				.isEqualTo(500));
	}

}

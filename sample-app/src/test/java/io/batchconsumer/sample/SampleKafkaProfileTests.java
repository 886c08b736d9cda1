package io.batchconsumer.sample;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.core.Transport;
import io.batchconsumer.core.kafka.KafkaTransport;
import io.batchconsumer.sample.OrderPublisher.PublishResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code kafka} profile on a real in-process Kafka broker: the same listeners, unchanged, run
 * on the Kafka transport; published orders are all processed and audited.
 */
@EmbeddedKafka(partitions = 4, topics = { "orders", "audit" })
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}",
				"batch-consumer.commit.interval=100ms", "sample.slow-share=0" })
@ActiveProfiles("kafka")
@AutoConfigureRestTestClient
class SampleKafkaProfileTests {

	@TempDir
	static Path directory;

	@Autowired
	private RestTestClient client;

	@Autowired
	private JdbcTemplate jdbcTemplate;

	@Autowired
	private Transport transport;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> "jdbc:h2:file:" + directory.resolve("sample").toAbsolutePath()
				+ ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE");
	}

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

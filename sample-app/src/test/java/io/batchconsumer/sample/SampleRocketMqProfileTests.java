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
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.rocketmq.RocketMqTransport;
import io.batchconsumer.sample.OrderPublisher.PublishResult;
import io.batchconsumer.testsupport.H2FileDatabase;
import io.batchconsumer.testsupport.SharedRocketMq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code rocketmq} profile on a real in-process RocketMQ name server and broker: the same
 * listeners, unchanged, run on the RocketMQ transport; published orders are all processed and
 * audited. The profile only sets the transport and the name server.
 *
 * <p>The name server and broker are {@link SharedRocketMq}'s, shut down at JVM exit, not by the
 * test: the cached Spring context closes (and its listeners drain and commit) at JVM exit too, after
 * any {@code @AfterAll}, and needs them.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "batch-consumer.commit.interval=100ms", "sample.slow-share=0" })
@ActiveProfiles("rocketmq")
@AutoConfigureRestTestClient
@Tag("integration")
class SampleRocketMqProfileTests {

	@Autowired
	private RestTestClient client;

	@Autowired
	private JdbcTemplate jdbcTemplate;

	@Autowired
	private Transport transport;

	@DynamicPropertySource
	static void rocketMq(DynamicPropertyRegistry registry) {
		SharedRocketMq rocketMq = SharedRocketMq.instance();
		rocketMq.createTopic("orders", 4);
		rocketMq.createTopic("audit", 4);
		registry.add("batch-consumer.rocketmq.name-server", rocketMq::nameServer);
	}

	@Test
	void ordersAreProcessedOnRocketMq() {
		assertThat(this.transport).isInstanceOf(RocketMqTransport.class);
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

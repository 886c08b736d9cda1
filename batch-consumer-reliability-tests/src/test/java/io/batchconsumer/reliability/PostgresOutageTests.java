package io.batchconsumer.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A PostgreSQL outage under a running application: the embedded server is stopped for about 10 s
 * while a listener consumes. The container keeps running and retries; its statistics carry the
 * source error and the {@code batchConsumer} health component is {@code DOWN} (HTTP 503) during
 * the outage, {@code UP} again after it; consumption resumes by itself and every message is
 * processed, every queue committed to its end.
 *
 * <p>The pool uses short timeouts (1 s to get a connection) so that the outage is seen at once.
 * Default run: one outage of 10 s; soak run: four outages of 20 s.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=outage", "spring.datasource.hikari.connection-timeout=1000",
				"spring.datasource.hikari.validation-timeout=500", "spring.datasource.hikari.maximum-pool-size=6",
				"batch-consumer.jdbc.initialize-schema=always", "batch-consumer.thread-size=2",
				"batch-consumer.commit.interval=100ms", "management.endpoint.health.show-details=always" })
@AutoConfigureRestTestClient
@DirtiesContext
@Tag("integration")
class PostgresOutageTests {

	private static final String TOPIC = "outage";

	/** Stopped at JVM exit by the embedded server's hook, after the context closed. */
	private static final RestartablePostgres postgres = RestartablePostgres.startOnFreePort();

	@Autowired
	private RestTestClient http;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private BatchListenerContainerRegistry registry;

	@Autowired
	private Listener listener;

	@Autowired
	private JdbcTemplate jdbc;

	/** Batches sent again because the database could not store them. */
	private int resends;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", postgres::jdbcUrl);
	}

	@Test
	void theContainerRidesOutAnOutageReportsItselfDownAndLosesNothing() {
		long seed = Soak.seed("PostgresOutageTests");
		Random random = new Random(seed);
		int outages = Soak.pick(1, 4);
		Duration outage = Duration.ofSeconds(Soak.pick(10, 20));
		int perRound = Soak.pick(4_000, 40_000);
		BatchContainer container = this.registry.getContainer(TOPIC);
		int sent = 0;
		for (int round = 0; round < outages; round++) {
			sent = send(sent, perRound);
			int processedBeforeOutage = sent - perRound + random.nextInt(perRound / 2);
			await().atMost(Duration.ofSeconds(60)).until(() -> this.listener.seen.size() >= processedBeforeOutage);
			assertHealth(200, "UP");
			postgres.stop();
			long stopped = System.nanoTime();
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				assertThat(container.stats().sourceError()).isNotNull();
				assertHealth(503, "DOWN");
			});
			Duration left = outage.minusNanos(System.nanoTime() - stopped);
			if (!left.isNegative()) {
				await().during(left).atMost(left.plusSeconds(5)).untilAsserted(() -> {
					assertThat(container.isRunning()).isTrue();
					assertThat(container.stats().state()).isNotEqualTo(LifecyclePhase.FAILED);
				});
			}
			postgres.start();
			await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
				assertThat(container.stats().sourceError()).isNull();
				assertHealth(200, "UP");
			});
		}
		int total = send(sent, perRound);
		await().atMost(Duration.ofMinutes(2)).until(() -> this.listener.seen.size() == total);
		JdbcQueues queues = new JdbcQueues(this.jdbc);
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> queues.assertCommittedToTheEnd(TOPIC, TOPIC));
		assertThat(this.listener.seen).as("seed %d", seed)
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, total).mapToObj(PostgresOutageTests::payload).toList());
		System.out.printf("PostgresOutageTests: %d messages, %d outages of %s, lost 0, failed commits %d, batches sent again %d%n",
				total, outages, outage, container.stats().commitsFailed(), this.resends);
	}

	/**
	 * Sends like a producer that outlives an outage: a batch is stored in one transaction, so one
	 * that failed stored nothing and is sent again. Right after a restart the pool may still be
	 * without connections (HikariCP waits up to 5 s between attempts to open one once they
	 * failed), and a send then fails after the 1 s connection timeout although the container
	 * already read again; CI met that once.
	 */
	private int send(int from, int count) {
		for (int first = from; first < from + count; first += 500) {
			List<String> batch = IntStream.range(first, Math.min(first + 500, from + count))
				.mapToObj(PostgresOutageTests::payload)
				.toList();
			await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(30)).until(() -> stored(batch));
		}
		return from + count;
	}

	private boolean stored(List<String> batch) {
		List<SendResult> results = this.producer.sendBatch(TOPIC, batch);
		if (results.stream().allMatch(SendResult::isStored)) {
			return true;
		}
		assertThat(results).as("a failed batch stores nothing").noneMatch(SendResult::isStored);
		this.resends++;
		return false;
	}

	private void assertHealth(int httpStatus, String status) {
		this.http.get()
			.uri("/actuator/health/batchConsumer")
			.exchange()
			.expectStatus()
			.isEqualTo(httpStatus)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(status);
	}

	private static String payload(int id) {
		return "m-" + id;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listener.class)
	static class TestApplication {

	}

	/** Remembers every payload it saw; a little slow, so that an outage meets work in flight. */
	@Component
	static class Listener {

		final Set<String> seen = ConcurrentHashMap.newKeySet();

		@BatchListener(id = TOPIC, topics = TOPIC)
		void onPayloads(List<String> payloads) throws InterruptedException {
			Thread.sleep(5); // simulated work
			this.seen.addAll(payloads);
		}

	}

}

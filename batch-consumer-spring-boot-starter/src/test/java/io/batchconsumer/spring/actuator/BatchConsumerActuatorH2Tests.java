package io.batchconsumer.spring.actuator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

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

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Meters, health and the {@code batchconsumer} endpoint over HTTP, with the write operations
 * allowed, on the JDBC transport and an H2 file database (one queue per topic). Each listener has a
 * group of its own: the JDBC transport shares a topic's queues among every live container of a
 * group, also those that do not subscribe to the topic.
 */
@H2FileDatabase
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.application.name=actuator-tests",
				"management.endpoints.web.exposure.include=health,metrics,batchconsumer",
				"management.endpoint.health.show-details=always", "management.endpoint.batchconsumer.access=unrestricted",
				"batch-consumer.jdbc.queues-per-topic=1", "batch-consumer.commit.interval=100ms",
				"batch-consumer.health.stall-timeout=1s", "batch-consumer.metrics.refresh-interval=200ms",
				"batch-consumer.shutdown-timeout=5s", "batch-consumer.listeners.blocked.thread-size=2",
				"batch-consumer.listeners.blocked.consumer-batch-size=5",
				"batch-consumer.listeners.blocked.pull-batch-size=10",
				"batch-consumer.listeners.blocked.flow-control.pull-threshold-for-queue=20",
				"batch-consumer.listeners.replay.ordering=unordered",
				"batch-consumer.listeners.replay.consumer-batch-size=1",
				"batch-consumer.listeners.replay.thread-size=4", "batch-consumer.listeners.blocked.group=blocked",
				"batch-consumer.listeners.paused.group=paused", "batch-consumer.listeners.replay.group=replay" })
@AutoConfigureRestTestClient
@Tag("integration")
class BatchConsumerActuatorH2Tests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Autowired
	private RestTestClient restTestClient;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	private ActuatorClient actuator;

	@BeforeEach
	void client() {
		this.actuator = new ActuatorClient(this.restTestClient);
	}

	@Test
	void aBlockedListenerFillsItsBacklogUpToFlowControlTurnsDownAndRecoversWhenReleased() {
		try {
			this.producer.sendBatch("blocked", IntStream.range(0, 200).mapToObj((i) -> "b-" + i).toList());
			await().atMost(WAIT).untilAsserted(() -> assertThat(this.actuator.metric("batch.consumer.flow.control",
					"COUNT", "listener:blocked", "reason:count")).isGreaterThanOrEqualTo(1));
			await().atMost(WAIT).untilAsserted(() -> {
				double backlog = this.actuator.metric("batch.consumer.backlog", "VALUE", "listener:blocked");
				assertThat(backlog).isGreaterThan(20).isLessThanOrEqualTo(20 + 10);
				assertThat(this.actuator.metric("batch.consumer.commit.lag", "VALUE", "listener:blocked"))
					.isGreaterThan(20);
			});
			await().atMost(WAIT).untilAsserted(() -> {
				assertThat(this.actuator.batchConsumerStatus()).isEqualTo("DOWN");
				JsonNode blocked = this.actuator.listenerHealth("blocked");
				assertThat(blocked.path("status").asString()).isEqualTo("DOWN");
				assertThat(blocked.path("reason").asString()).startsWith("stalled");
				assertThat(blocked.path("paused").asBoolean()).isFalse();
			});
			assertThat(this.actuator.get("/actuator/health").status()).isEqualTo(503);
			assertThat(this.actuator.metric("batch.consumer.backlog", "VALUE", "listener:blocked"))
				.isLessThanOrEqualTo(20 + 10);
		}
		finally {
			this.listeners.blockedGate.countDown();
		}
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.listeners.blocked).hasSize(200);
			assertThat(this.actuator.metric("batch.consumer.backlog", "VALUE", "listener:blocked")).isZero();
			assertThat(this.actuator.metric("batch.consumer.commit.lag", "VALUE", "listener:blocked")).isZero();
			assertThat(this.actuator.batchConsumerStatus()).isEqualTo("UP");
		});
		assertThat(this.actuator.metric("batch.consumer.messages", "COUNT", "listener:blocked", "outcome:success"))
			.isEqualTo(200);
		assertThat(this.actuator.metric("batch.consumer.slice.duration", "COUNT", "listener:blocked")).isPositive();
		assertThat(this.actuator.metric("batch.consumer.commits", "COUNT", "listener:blocked", "outcome:success"))
			.isPositive();
		assertThat(this.actuator.metric("batch.consumer.thread.batches", "COUNT", "listener:blocked", "shape:cut"))
			.isPositive();
	}

	@Test
	void pauseStopsDeliveryWithoutTurningHealthDownAndResumeContinues() {
		ActuatorClient.Response paused = this.actuator.post("/actuator/batchconsumer/paused/pause", Map.of());
		assertThat(paused.status()).isEqualTo(200);
		assertThat(paused.body().path("state").asString()).isEqualTo("PAUSED");
		this.producer.sendBatch("paused", List.of("p-0", "p-1", "p-2", "p-3", "p-4"));
		await().during(Duration.ofMillis(800)).atMost(WAIT).until(this.listeners.paused::isEmpty);
		await().atMost(WAIT).untilAsserted(() -> {
			JsonNode health = this.actuator.listenerHealth("paused");
			assertThat(health.path("status").asString()).isEqualTo("UP");
			assertThat(health.path("paused").asBoolean()).isTrue();
			assertThat(health.path("state").asString()).isEqualTo("PAUSED");
			assertThat(this.actuator.partition("paused", 0).path("pausedByUser").asBoolean()).isTrue();
		});
		assertThat(this.actuator.post("/actuator/batchconsumer/paused/resume", Map.of()).status()).isEqualTo(200);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.listeners.paused).hasSize(5));
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.actuator.listenerHealth("paused").path("paused")
			.asBoolean()).isFalse());
	}

	@Test
	void oneAssignedPartitionCanBePausedAndResumedAndAnUnassignedOneIsABadRequest() {
		Map<String, Object> partition = Map.of("topic", "paused", "partition", 0);
		assertThat(this.actuator.post("/actuator/batchconsumer/paused/pause", partition).status()).isEqualTo(200);
		await().atMost(WAIT).untilAsserted(() -> {
			assertThat(this.actuator.partition("paused", 0).path("pausedByUser").asBoolean()).isTrue();
			assertThat(this.actuator.listenerHealth("paused").path("paused").asBoolean()).isTrue();
		});
		assertThat(this.actuator.post("/actuator/batchconsumer/paused/resume", partition).status()).isEqualTo(200);
		await().atMost(WAIT).untilAsserted(
				() -> assertThat(this.actuator.partition("paused", 0).path("pausedByUser").asBoolean()).isFalse());
		assertThat(this.actuator.post("/actuator/batchconsumer/paused/pause", Map.of("topic", "paused", "partition", 7))
			.status()).isEqualTo(400);
		assertThat(this.actuator.post("/actuator/batchconsumer/nope/pause", Map.of()).status()).isEqualTo(400);
		assertThat(this.actuator.post("/actuator/batchconsumer/paused/restart", Map.of()).status()).isEqualTo(400);
	}

	@Test
	void seekBackDeliversAgainAndALateCompletionOfTheOldEpochDoesNotMoveTheCommit() {
		List<SendResult> sent = this.producer.sendBatch("replay",
				IntStream.range(0, 10).mapToObj((i) -> "r-" + i).toList());
		long first = sent.get(0).offset();
		long blocking = sent.get(5).offset();
		long end = sent.get(9).offset() + 1;
		try {
			await().atMost(WAIT).untilAsserted(() -> assertThat(this.listeners.replayed).hasSize(10));
			long oldEpoch = this.actuator.partition("replay", 0).path("epoch").asLong();
			Map<String, Object> seek = Map.of("topic", "replay", "partition", 0, "offset", first + 2);
			ActuatorClient.Response response = this.actuator.post("/actuator/batchconsumer/replay/seek", seek);
			assertThat(response.status()).isEqualTo(200);
			assertThat(response.body().path("offset").asLong()).isEqualTo(first + 2);
			await().atMost(WAIT).untilAsserted(() -> {
				assertThat(this.listeners.replayed).hasSize(18);
				JsonNode partition = this.actuator.partition("replay", 0);
				assertThat(partition.path("epoch").asLong()).isGreaterThan(oldEpoch);
				assertThat(partition.path("backlog").asLong()).isEqualTo(1);
			});
			this.listeners.oldGate.countDown();
			await().during(Duration.ofSeconds(1)).atMost(WAIT).untilAsserted(() -> assertThat(
					this.actuator.partition("replay", 0).path("committedOffset").asLong()).isBetween(first + 2, blocking));
		}
		finally {
			this.listeners.oldGate.countDown();
			this.listeners.newGate.countDown();
		}
		await().atMost(WAIT).untilAsserted(
				() -> assertThat(this.actuator.partition("replay", 0).path("committedOffset").asLong()).isEqualTo(end));
		assertThat(this.listeners.replayed).filteredOn((offset) -> offset < first + 2).hasSize(2);
		assertThat(this.listeners.replayed).filteredOn((offset) -> offset >= first + 2).hasSize(16);
	}

	@Test
	void theEndpointShowsEveryContainerWithItsPartitionsAndNoPayload() {
		await().atMost(WAIT).untilAsserted(() -> {
			JsonNode all = this.actuator.get("/actuator/batchconsumer").body().path("listeners");
			assertThat(all.propertyNames()).contains("blocked", "paused", "replay");
			JsonNode paused = all.path("paused");
			assertThat(paused.path("group").asString()).isEqualTo("paused");
			assertThat(paused.path("state").asString()).isIn("RUNNING", "PAUSED");
			assertThat(paused.path("counters").has("messagesSucceeded")).isTrue();
			assertThat(paused.path("counters").has("batchesOpened")).isTrue();
			assertThat(paused.path("counters").has("batchesWhole")).isTrue();
			JsonNode partition = paused.path("partitions").path(0);
			assertThat(partition.path("topic").asString()).isEqualTo("paused");
			assertThat(partition.has("fetchedOffset")).isTrue();
			assertThat(partition.has("committedOffset")).isTrue();
			assertThat(partition.has("oldestOpenBatchAgeMillis")).isTrue();
		});
		assertThat(this.actuator.get("/actuator/batchconsumer").body().toString()).doesNotContain("p-0", "r-0", "b-0");
		assertThat(this.actuator.get("/actuator/batchconsumer/nope").status()).isEqualTo(404);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final CountDownLatch blockedGate = new CountDownLatch(1);

		final List<String> blocked = new CopyOnWriteArrayList<>();

		final List<String> paused = new CopyOnWriteArrayList<>();

		final List<Long> replayed = new CopyOnWriteArrayList<>();

		final CountDownLatch oldGate = new CountDownLatch(1);

		final CountDownLatch newGate = new CountDownLatch(1);

		final AtomicInteger blockedDeliveries = new AtomicInteger();

		@BatchListener(id = "blocked", topics = "blocked")
		void onBlocked(List<String> payloads) throws InterruptedException {
			this.blockedGate.await(60, TimeUnit.SECONDS);
			this.blocked.addAll(payloads);
		}

		@BatchListener(id = "paused", topics = "paused")
		void onPaused(List<String> payloads) {
			this.paused.addAll(payloads);
		}

		@BatchListener(id = "replay", topics = "replay")
		void onReplay(Message<String> message) throws InterruptedException {
			this.replayed.add(message.offset());
			if ("r-5".equals(message.payload())) {
				CountDownLatch gate = (this.blockedDeliveries.incrementAndGet() == 1) ? this.oldGate : this.newGate;
				gate.await(60, TimeUnit.SECONDS);
			}
		}

	}

}

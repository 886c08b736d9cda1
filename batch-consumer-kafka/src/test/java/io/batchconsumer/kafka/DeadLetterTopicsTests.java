package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Topics of the transport's own (dead-letter topics) on an in-process broker when their creation
 * fails. The broker refuses a topic whose name collides with an existing one once dots are read as
 * underscores ({@code a.b.DLQ} and {@code a_b_DLQ}), for a creation by the admin client as for one
 * by a producer's metadata request: the topic then stays missing, as it does where a policy or an
 * ACL refuses it.
 */
@Tag("integration")
class DeadLetterTopicsTests extends SharedKafkaTransportTests {

	@Test
	void aDeadLetterToATopicThatCouldNotBeCreatedFailsAtOnceNamingItAndCreationIsTriedAgainNextTime()
			throws Exception {
		broker.createTopic("refused_orders_DLQ", 1);
		Map<String, Object> properties = KafkaTransportTests.with(broker.clientProperties(),
				ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
		try (KafkaTransport refused = new KafkaTransport(properties)) {
			ContainerOptions options = ContainerOptions.builder("refused").topics("refused.orders").group("refusing").build();
			KafkaDeadLetterSink sink = refused.deadLetterSink(options);
			DeadLetter deadLetter = DeadLetter.of(Message.raw("refused.orders", 0, 7, "k",
					"poison".getBytes(StandardCharsets.UTF_8), Map.of(), 0L), 3, new IllegalStateException("no"));
			for (int send = 1; send <= 2; send++) {
				long started = System.nanoTime();
				assertThatThrownBy(() -> sink.send(deadLetter)).as("send %d", send)
					.hasMessageContaining("refused.orders.DLQ")
					.hasMessageContaining("could not be created");
				// Without waiting for the producer's metadata (max.block.ms, a minute here) on each send.
				assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).as("seconds of send %d", send)
					.isLessThan(30);
			}
			try (Admin admin = Admin.create(broker.clientProperties())) {
				admin.deleteTopics(List.of("refused_orders_DLQ")).all().get(30, TimeUnit.SECONDS);
			}
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
				.untilAsserted(() -> sink.send(deadLetter));
			assertThat(broker.readAll("refused.orders.DLQ", 1, Duration.ofSeconds(20))).hasSize(1);
		}
	}

}
